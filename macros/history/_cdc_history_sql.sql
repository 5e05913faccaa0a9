{% macro _cdc_history_sql(changes, key_columns, value_columns, readable='_cdc_error_reason is null', stored=false) %}
    {#-
        The type-2 resolution behind cdc_history and the cdc_history materialization, over
        `changes` (a relation, CTE name or parenthesised query) whose rows pass `readable`.
        stored=false: the published versions (no deletes). stored=true: what the
        materialization's state keeps, the change columns of every deduplicated row change
        (deletes included) with its resolved valid_to and is_current, and one row per
        truncate (_cdc_op 't', no key), so that a key can be resolved again from the state
        alone (_cdc_history_stored_columns).
    -#}
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
                partition by {{ cdc_quote_list(key_list) }}, _cdc_position
                order by _cdc_sort_key
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

sequenced as (

    select
        *,
        lead(_cdc_position) over (
            partition by {{ cdc_quote_list(key_list) }} order by _cdc_sort_key
        ) as next_position,
        lead(_cdc_source_ts) over (
            partition by {{ cdc_quote_list(key_list) }} order by _cdc_sort_key
        ) as next_change_at
    from row_changes

),

closed_by_truncate as (

    -- the first truncate after a version and before its key's next change
    select
        {%- for column in key_list %}
        sequenced.{{ cdc_quote(column) }},
        {%- endfor %}
        sequenced._cdc_position,
        min(truncates.truncate_position) as closing_position,
        min_by(truncates.truncated_at, truncates.truncate_position) as truncated_at
    from sequenced
    inner join truncates
        on sequenced._cdc_source_id = truncates._cdc_source_id
        and truncates.truncate_position > sequenced._cdc_position
        and (
            sequenced.next_position is null
            or truncates.truncate_position < sequenced.next_position
        )
    group by {% for column in key_list %}sequenced.{{ cdc_quote(column) }}, {% endfor %}sequenced._cdc_position

),

resolved as (

    select
        {%- for column in key_list + value_columns %}
        sequenced.{{ cdc_quote(column) }},
        {%- endfor %}
        sequenced._cdc_op,
        sequenced._cdc_position,
        sequenced._cdc_sort_key,
        sequenced._cdc_source_ts,
        sequenced._cdc_source_db,
        sequenced._loaded_at,
        coalesce(closed_by_truncate.truncated_at, sequenced.next_change_at) as valid_to,
        sequenced.next_position is null and closed_by_truncate.truncated_at is null as is_current,
        sequenced.next_position,
        closed_by_truncate.closing_position
    from sequenced
    left outer join closed_by_truncate
        on {% for column in key_list %}sequenced.{{ cdc_quote(column) }} <=> closed_by_truncate.{{ cdc_quote(column) }}
        and {% endfor %}sequenced._cdc_position = closed_by_truncate._cdc_position

),

final as (

{%- if stored %}

    select * from resolved

    union all

    select
        _cdc_source_id,
        {%- for column in key_columns + value_columns %}
        null as {{ cdc_quote(column) }},
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
        {%- for column in key_list + value_columns %}
        {{ cdc_quote(column) }},
        {%- endfor %}
        _cdc_op,
        _cdc_position as _cdc_valid_from_position,
        _cdc_source_ts as valid_from,
        valid_to,
        is_current,
        _cdc_source_db,
        _loaded_at
    from resolved
    where _cdc_op != 'd'

{%- endif %}

)

select * from final
{% endmacro %}
