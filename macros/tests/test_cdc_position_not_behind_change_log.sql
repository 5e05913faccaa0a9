{% test cdc_position_not_behind_change_log(model, changes, key_columns, change_key_columns=none) -%}
    {%- set recorded = cdc_lakehouse._cdc_recorded_check() -%}
    {%- set change_columns = cdc_lakehouse._cdc_column_names(changes) if recorded is none else [] -%}
    {%- set model_columns = cdc_lakehouse._cdc_column_names(model) if recorded is none else [] -%}
    {%- set scope = cdc_lakehouse.cdc_test_scope(changes)
          if recorded is none and '__cdc_loaded_in_this_run__' in (config.get('where') or '')
          else {'kind': 'all'} -%}
    {%- set scoped = scope.kind != 'all' -%}
    {%- set change_keys = change_key_columns or key_columns -%}
    {%- if change_keys | length != key_columns | length -%}
        {{ exceptions.raise_compiler_error(
            "cdc_position_not_behind_change_log: change_key_columns (" ~ change_keys | join(', ')
            ~ ") must name as many columns as key_columns (" ~ key_columns | join(', ') ~ ")"
        ) }}
    {%- endif -%}
    {#- the change log's key columns are selected under the model's names -#}
    {%- set change_key_select = [] -%}
    {%- set join_keys = [] -%}
    {%- set touched_changes = [] -%}
    {%- set touched_gold = [] -%}
    {%- for column in key_columns -%}
        {%- set change_column = cdc_lakehouse.cdc_quote(change_keys[loop.index0]) -%}
        {%- set model_column = cdc_lakehouse.cdc_quote(column) -%}
        {%- do change_key_select.append(change_column ~ ' as ' ~ model_column) -%}
        {%- do join_keys.append('live.' ~ model_column ~ ' <=> latest.' ~ model_column) -%}
        {%- do touched_changes.append('touched.' ~ model_column ~ ' <=> readable_changes.' ~ change_column) -%}
        {%- do touched_gold.append('touched.' ~ model_column ~ ' <=> gold.' ~ model_column) -%}
    {%- endfor -%}

    {%- set recorded_columns = {} -%}
    {%- for column in key_columns -%}
        {%- do recorded_columns.update({column: 'string'}) -%}
    {%- endfor -%}
    {%- do recorded_columns.update({'gold_position': 'string', 'latest_position': 'string', 'latest_op': 'string', 'truncated_at': 'string'}) -%}
{%- if recorded is not none %}
{{ cdc_lakehouse._cdc_recorded_rows_sql(recorded, recorded_columns) }}
{%- elif scope.kind == 'nothing' %}
-- this build loaded nothing into the change log: nothing to check
select cast(null as string) as gold_position where false
{%- else %}
with
{% if scoped %}
touched as (

    select distinct {{ change_key_select | join(', ') }}
    from {{ changes }}
    where {{ cdc_lakehouse.cdc_scope_predicate(scope) }}

),

touched_sources as (

    select distinct _cdc_source_id
    from {{ changes }}
    where _cdc_op = 't' and {{ cdc_lakehouse.cdc_scope_predicate(scope) }}

),
{% endif %}
readable as (

    select * from {{ changes }} as readable_changes
    where true
    {%- if '_cdc_error_reason' in change_columns %}
        and _cdc_error_reason is null
    {%- endif %}
    {%- if scoped %}
        -- every change of a touched key, and of every key of a source the run's loads
        -- truncated (its live rows are checked below, touched by this run or not)
        and (
            _cdc_op = 't'
            or exists (
                select 1 from touched
                where {{ touched_changes | join(' and ') }}
            )
            or readable_changes._cdc_source_id in (
                select touched_sources._cdc_source_id from touched_sources
            )
        )
    {%- endif %}

),

latest as (

    select
        {{ change_key_select | join(', ') }},
        max(_cdc_position) as latest_position,
        max_by(_cdc_op, _cdc_sort_key) as latest_op
    from readable
    where _cdc_op != 't'
    group by {{ cdc_lakehouse._cdc_quote_list(change_keys) }}

),

truncates as (

    select
        _cdc_source_id,
        max(_cdc_position) as truncated_at
    from readable
    where _cdc_op = 't'
    group by _cdc_source_id

),

live as (

    select * from {{ model }} as gold
    where true
    {%- if '_cdc_is_deleted' in model_columns %}
        and not _cdc_is_deleted
    {%- endif %}
    {%- if scoped %}
        and (
            exists (
                select 1 from touched
                where {{ touched_gold | join(' and ') }}
            )
            or _cdc_source_id in (select touched_sources._cdc_source_id from touched_sources)
        )
    {%- endif %}

),

final as (

    select
        {%- for column in key_columns %}
        live.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        live._cdc_position as gold_position,
        latest.latest_position,
        latest.latest_op,
        truncates.truncated_at
    from live
    left outer join latest
        on {{ join_keys | join(' and ') }}
    left outer join truncates
        on live._cdc_source_id = truncates._cdc_source_id
    where
        latest.latest_position is null
        or live._cdc_position < latest.latest_position
        or latest.latest_op = 'd'
        or truncates.truncated_at > live._cdc_position

)

select * from final
{%- endif %}
{% endtest %}
