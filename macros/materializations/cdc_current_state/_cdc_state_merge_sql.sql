{% macro _cdc_state_merge_sql(changes_sql, columns, unique_key, state_relation, buckets, retention_days, carry=none, candidates_relation=none, candidates_only=false) %}
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
    {%- if candidates_relation is not none %}

    select * from {{ candidates_relation }}
    {%- else %}

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
    {%- endif %}

){%- if candidates_only %}

select * from candidates
{%- else -%},

ranked as (

    select
        *,
        {{ cdc_lakehouse._cdc_latest_change_rank(unique_key) }} as change_rank
    from candidates

),
{%- if carry is not none %}

winners as (

    select
        {%- for column in columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        _cdc_is_deleted,
        cdc_bucket
    from ranked
    where change_rank = 1

),

{{ cdc_lakehouse._cdc_carry_ctes(
    carry, columns, 'winners',
    'select ' ~ cdc_lakehouse._cdc_carry_source_columns(carry) ~ ' from candidates',
    none if state_relation is none else 'select * from ' ~ state_relation ~ ' where cdc_bucket != ' ~ cdc_lakehouse._cdc_partition('truncate_markers')) }},
{%- endif %}

applied as (

    select
        {%- for column in columns %}
        ranked.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        ranked._cdc_is_deleted
        or {{ cdc_lakehouse._cdc_hidden_by_truncate('ranked._cdc_sort_key', 'truncates.truncated_before') }} as _cdc_is_deleted,
        ranked.cdc_bucket
    {%- if carry is not none %}
    from carried as ranked
    {%- else %}
    from ranked
    {%- endif %}
    left outer join truncates
        on ranked._cdc_source_id = truncates._cdc_source_id
    {%- if carry is none %}
    where ranked.change_rank = 1
    {%- endif %}

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
{%- endif %}
{% endmacro %}
