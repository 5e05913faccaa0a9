{% macro _cdc_history_view_sql(target_relation, state_relation, key_columns, value_columns) %}
  {#- The published view of a cdc_history state table. -#}
  {%- set key_list = ['_cdc_source_id'] + key_columns -%}
  {%- set change_columns = cdc_lakehouse._cdc_history_stored_columns(key_columns, value_columns)
        | reject('in', ['valid_to', 'is_current', 'next_position', 'closing_position']) | list -%}
  {%- set key_match -%}
    {% for column in key_list %}compacted.{{ cdc_lakehouse.cdc_quote(column) }} <=> reopened_keys.{{ cdc_lakehouse.cdc_quote(column) }}{{ ' and ' if not loop.last }}{% endfor %}
  {%- endset -%}
create or replace view {{ target_relation }} as
with

compacted as (

    select * from {{ state_relation }}
    where cdc_bucket = 0

),

delta as (

    select * from {{ state_relation }}
    where cdc_bucket = {{ cdc_lakehouse._cdc_partition('delta') }}

),

reopened_keys as (

    select distinct {{ cdc_lakehouse._cdc_quote_list(key_list) }}
    from delta

),

delta_truncates as (

    -- per source, the truncates loaded since the compaction
    select
        _cdc_source_id,
        collect_list(named_struct('position', _cdc_position, 'at', _cdc_source_ts)) as truncates
    from delta
    where _cdc_op = 't'
    group by _cdc_source_id

),

untouched as (

    select
        compacted.*,
        -- the first new truncate inside the version: after it opened, before the key's
        -- next change and before the truncate that closed it
        array_min(filter(
            delta_truncates.truncates,
            truncate -> truncate.position > compacted._cdc_position
                and (compacted.next_position is null or truncate.position < compacted.next_position)
                and (compacted.closing_position is null or truncate.position < compacted.closing_position)
        )) as new_truncate
    from compacted
    left anti join reopened_keys
        on {{ key_match }}
    left outer join delta_truncates
        on compacted._cdc_source_id = delta_truncates._cdc_source_id
    where compacted._cdc_op not in ('d', 't')

),

settled as (

    select
        {%- for column in key_list + value_columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        _cdc_op,
        _cdc_position,
        _cdc_source_ts,
        coalesce(new_truncate.at, valid_to) as valid_to,
        is_current and new_truncate is null as is_current,
        _cdc_source_db,
        _loaded_at
    from untouched

),

reopened_changes as (

    select {% for column in change_columns %}compacted.{{ cdc_lakehouse.cdc_quote(column) }}{{ ', ' if not loop.last }}{% endfor %}
    from compacted
    left semi join reopened_keys
        on {{ key_match }}

    union all

    select {{ cdc_lakehouse._cdc_quote_list(change_columns) }}
    from compacted
    where _cdc_op = 't'

    union all

    select {{ cdc_lakehouse._cdc_quote_list(change_columns) }}
    from delta

),

reopened as (

    select * from (
        {{ cdc_lakehouse._cdc_history_sql('reopened_changes', key_columns, value_columns, readable='true') }}
    ) as resolved_again

),

final as (

    select
        {{ cdc_lakehouse._cdc_history_published_columns(key_columns, value_columns) }}
    from settled

    union all

    select * from reopened

)

select * from final
{% endmacro %}
