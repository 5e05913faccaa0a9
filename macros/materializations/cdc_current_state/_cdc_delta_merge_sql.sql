{% macro _cdc_delta_merge_sql(changes_sql, columns, unique_key, state_relation, carry=none, small_batch=false, candidates_relation=none, candidates_only=false) %}
  {#- The new content of the delta partition of a parquet state table. -#}
  {%- set key_list = cdc_lakehouse._cdc_quote_list(unique_key) -%}
with

new_changes as (

    select
        {%- for column in columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
    {%- if candidates_relation is not none %}
        _cdc_is_deleted
    from {{ candidates_relation }}
    where not _cdc_is_stored
    {%- else %}
        _cdc_op = 'd' as _cdc_is_deleted
    from ({{ changes_sql }}) as changes
    where _cdc_op != 't'
    {%- endif %}

),

stored_delta as (

    select
        {%- for column in columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        _cdc_is_deleted
    {%- if candidates_relation is not none %}
    from {{ candidates_relation }}
    where _cdc_is_stored
    {%- else %}
    from {{ state_relation }}
    where cdc_bucket = {{ cdc_lakehouse._cdc_partition('delta') }}
    {%- endif %}

),
{%- if candidates_only %}

candidates as (

    select *, false as _cdc_is_stored from new_changes
    union all
    select *, true as _cdc_is_stored from stored_delta

)

select * from candidates
{%- else %}

compacted as (

    select {% if small_batch %}/*+ broadcast(batch_keys) */{% endif %}
        {%- for column in unique_key %}
        compacted_rows.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        compacted_rows._cdc_sort_key
    from {{ state_relation }} as compacted_rows
    left semi join (
        select distinct {{ key_list }} from new_changes
    ) as batch_keys
        on {{ cdc_lakehouse._cdc_key_match(unique_key, 'compacted_rows', 'batch_keys') }}
    where compacted_rows.cdc_bucket >= 0

),

{{ cdc_lakehouse._cdc_truncates_ctes('(' ~ changes_sql ~ ') as changes', state_relation) }},

ranked as (

    select
        *,
        {{ cdc_lakehouse._cdc_latest_change_rank(unique_key) }} as change_rank
    from (
        select * from new_changes
        union all
        select * from stored_delta
    ) as candidates

),

latest as (

    select * from ranked where change_rank = 1

),
{%- if carry is not none %}

winners as (

    select
        {%- for column in columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        _cdc_is_deleted,
        {{ cdc_lakehouse._cdc_partition('delta') }} as cdc_bucket
    from latest

),

{{ cdc_lakehouse._cdc_carry_ctes(
    carry, columns, 'winners',
    'select ' ~ cdc_lakehouse._cdc_carry_source_columns(carry) ~ ' from new_changes union all select '
    ~ cdc_lakehouse._cdc_carry_source_columns(carry) ~ ' from stored_delta union all select '
    ~ cdc_lakehouse._cdc_carry_source_columns(carry, 'compacted_rows.') ~ ' from ' ~ state_relation
    ~ ' as compacted_rows left semi join carry_keys on '
    ~ cdc_lakehouse._cdc_key_match(unique_key, 'compacted_rows', 'carry_keys')
    ~ ' where compacted_rows.cdc_bucket >= 0',
    'select * from ' ~ state_relation ~ ' where cdc_bucket != ' ~ cdc_lakehouse._cdc_partition('truncate_markers')) }},

revisited as (
    {%- if not carry.by_position %}

    select carried.*, false as _cdc_revisited from carried
    {%- else %}

    select carried.*, coalesce(stored._cdc_op = 'c', false) as _cdc_revisited
    from carried
    left outer join (
        select {{ cdc_lakehouse._cdc_quote_list(unique_key) }}, _cdc_sort_key, _cdc_op
        from {{ state_relation }}
        where cdc_bucket >= 0 and _cdc_op = 'c'
            and (_cdc_source_id, _cdc_position) in (
                select _cdc_source_id, _cdc_position from new_changes where _cdc_op = 'd'
            )
    ) as stored
        on {{ cdc_lakehouse._cdc_key_match(unique_key, 'carried', 'stored') }}
        and carried._cdc_sort_key = stored._cdc_sort_key
        and not {{ cdc_lakehouse._cdc_carry_has_placeholder(carry, 'carried.') }}
    {%- endif %}

),
{%- endif %}

final as (

    select
        {%- for column in columns %}
        latest.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        latest._cdc_is_deleted
        or {{ cdc_lakehouse._cdc_hidden_by_truncate('latest._cdc_sort_key', 'truncates.truncated_before') }} as _cdc_is_deleted,
        {{ cdc_lakehouse._cdc_partition('delta') }} as cdc_bucket
    {%- if carry is not none %}
    from revisited as latest
    {%- else %}
    from latest
    {%- endif %}
    left outer join truncates
        on latest._cdc_source_id = truncates._cdc_source_id
    left anti join compacted
        on {{ cdc_lakehouse._cdc_key_match(unique_key, 'compacted', 'latest') }}
        and compacted._cdc_sort_key >= latest._cdc_sort_key
        {%- if carry is not none %}
        and not latest._cdc_revisited
        {%- endif %}

)

select * from final

union all

{{ cdc_lakehouse._cdc_truncate_marker_rows(columns) }}
{%- endif %}
{% endmacro %}
