{% macro _cdc_history_sql(changes, key_columns, value_columns, readable='_cdc_error_reason is null', stored=false) %}
    {#- The type-2 resolution behind cdc_history and the cdc_history materialization. -#}
    {%- set key_list = ['_cdc_source_id'] + key_columns -%}

with

readable_changes as (

    select * from {{ changes }}
    where {{ readable }}

),

row_changes as (

    select * from (
        select
            *,
            row_number() over (
                partition by {{ cdc_lakehouse._cdc_quote_list(key_list) }}, _cdc_position
                order by _cdc_sort_key desc
            ) as copy_number
        from readable_changes
        where _cdc_op != 't'
    ) as numbered
    where copy_number = 1

),

truncates as (

    select
        _cdc_source_id,
        _cdc_position as truncate_position,
        min(_cdc_source_ts) as truncated_at,
        min(_cdc_sort_key) as truncate_sort_key,
        min(_cdc_source_db) as truncate_source_db,
        min(_loaded_at) as truncate_loaded_at
    from readable_changes
    where _cdc_op = 't'
    group by _cdc_source_id, _cdc_position

),

source_truncates as (

    -- per source, its truncates (few): each version finds the one that closes it without
    -- a join of versions and truncates
    select
        _cdc_source_id,
        collect_list(named_struct('position', truncate_position, 'at', truncated_at)) as truncates
    from truncates
    group by _cdc_source_id

),

sequenced as (

    select
        *,
        lead(_cdc_position) over (
            partition by {{ cdc_lakehouse._cdc_quote_list(key_list) }} order by _cdc_sort_key
        ) as next_position,
        lead(_cdc_source_ts) over (
            partition by {{ cdc_lakehouse._cdc_quote_list(key_list) }} order by _cdc_sort_key
        ) as next_change_at
    from row_changes

),

closed as (

    select
        sequenced.*,
        -- the first truncate after the version and before its key's next change
        array_min(filter(
            source_truncates.truncates,
            truncate -> truncate.position > sequenced._cdc_position
                and (sequenced.next_position is null or truncate.position < sequenced.next_position)
        )) as closing_truncate
    from sequenced
    left outer join source_truncates
        on sequenced._cdc_source_id = source_truncates._cdc_source_id

),

resolved as (

    select
        {%- for column in key_list + value_columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        _cdc_op,
        _cdc_position,
        _cdc_sort_key,
        _cdc_source_ts,
        _cdc_source_db,
        _loaded_at,
        coalesce(closing_truncate.at, next_change_at) as valid_to,
        next_position is null and closing_truncate is null as is_current,
        next_position,
        closing_truncate.position as closing_position
    from closed

),

final as (

{%- if stored %}

    select * from resolved

    union all

    select
        _cdc_source_id,
        {%- for column in key_columns + value_columns %}
        null as {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        't' as _cdc_op,
        truncate_position as _cdc_position,
        truncate_sort_key as _cdc_sort_key,
        truncated_at as _cdc_source_ts,
        truncate_source_db as _cdc_source_db,
        truncate_loaded_at as _loaded_at,
        cast(null as timestamp) as valid_to,
        false as is_current,
        null as next_position,
        null as closing_position
    from truncates

{%- else %}

    select
        {{ cdc_lakehouse._cdc_history_published_columns(key_columns, value_columns) }}
    from resolved
    where _cdc_op != 'd'

{%- endif %}

)

select * from final
{% endmacro %}

{% macro _cdc_history_stored_columns(key_columns, value_columns) %}
    {#- The columns of a cdc_history state table, in their order. -#}
    {{ return(
        ['_cdc_source_id'] + key_columns + value_columns
        + ['_cdc_op', '_cdc_position', '_cdc_sort_key', '_cdc_source_ts', '_cdc_source_db', '_loaded_at']
        + ['valid_to', 'is_current', 'next_position', 'closing_position']
    ) }}
{% endmacro %}

{% macro _cdc_history_published_columns(key_columns, value_columns) %}
    {#- The select list of a history's published versions. -#}
    {%- set columns = [] -%}
    {%- for column in ['_cdc_source_id'] + key_columns -%}
        {%- do columns.append(cdc_lakehouse.cdc_quote(column)) -%}
    {%- endfor -%}
    {%- for column in value_columns -%}
        {%- do columns.append(cdc_lakehouse.cdc_quote(column)) -%}
    {%- endfor -%}
    {%- do columns.append(cdc_lakehouse.cdc_quote('_cdc_op')) -%}
    {%- do columns.extend([
          '_cdc_position as _cdc_valid_from_position',
          '_cdc_source_ts as valid_from',
          'valid_to', 'is_current', '_cdc_source_db', '_loaded_at']) -%}
    {{ return(columns | join(',\n        ')) }}
{% endmacro %}
