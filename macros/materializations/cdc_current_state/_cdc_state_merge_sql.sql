{% macro _cdc_state_merge_sql(changes_sql, columns, unique_key, state_relation, buckets, retention_days) %}
  {#- The new content of every state bucket the changes touch. -#}
with

new_changes as (

    select
        {%- for column in columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        {{ cdc_lakehouse._cdc_bucket(unique_key, buckets) }} as cdc_bucket
    from ({{ changes_sql }}) as changes

),

{{ cdc_lakehouse._cdc_truncates_ctes('new_changes', state_relation) }},

candidates as (

    select
        {%- for column in columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        _cdc_op = 'd' as _cdc_is_deleted,
        cdc_bucket
    from new_changes
    where _cdc_op != 't'
    {%- if state_relation is not none %}

    union all

    select
        {%- for column in columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        _cdc_is_deleted,
        cdc_bucket
    from {{ state_relation }}
    where cdc_bucket >= 0
        and (
            cdc_bucket in (select cdc_bucket from new_changes where _cdc_op != 't')
            or exists (select 1 from new_truncates)
        )
    {%- endif %}

),

ranked as (

    select
        *,
        {{ cdc_lakehouse._cdc_latest_change_rank(unique_key) }} as change_rank
    from candidates

),

applied as (

    select
        {%- for column in columns %}
        ranked.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        ranked._cdc_is_deleted
        or {{ cdc_lakehouse._cdc_hidden_by_truncate('ranked._cdc_sort_key', 'truncates.truncated_before') }} as _cdc_is_deleted,
        ranked.cdc_bucket
    from ranked
    left outer join truncates
        on ranked._cdc_source_id = truncates._cdc_source_id
    where ranked.change_rank = 1

),

final as (

    select * from applied
    where not _cdc_is_deleted
        or _loaded_at >= current_timestamp() - make_dt_interval({{ retention_days }})

    union all

    {{ cdc_lakehouse._cdc_truncate_marker_rows(columns) }}

)

select * from final
distribute by cdc_bucket
{% endmacro %}
