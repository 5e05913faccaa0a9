{% macro cdc_history(changes, key_columns, value_columns) %}
    {#-
        Type-2 history of a table from its typed change log `changes` (a relation or CTE
        name): one version per applied create, update or snapshot read, valid from its
        source time until the key's next change or the table's next truncate, whichever
        comes first. Deletes and truncates close versions and open none. Copies of one
        event (same position) count once, so replays and duplicates change nothing, and a
        late event takes its place in the sequence by position, not by arrival.
          key_columns    the table's key (contract names), without _cdc_source_id
          value_columns  the contract columns to carry in each version
    -#}
    {%- set key_list = ['_cdc_source_id'] + key_columns -%}

with

readable_changes as (

    select * from {{ changes }}
    where _cdc_error_reason is null

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
        min(_cdc_source_ts) as truncated_at
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

    select
        sequenced._message_id,
        min_by(truncates.truncated_at, truncates.truncate_position) as truncated_at
    from sequenced
    inner join truncates
        on sequenced._cdc_source_id = truncates._cdc_source_id
        and truncates.truncate_position > sequenced._cdc_position
        and (
            sequenced.next_position is null
            or truncates.truncate_position < sequenced.next_position
        )
    group by sequenced._message_id

),

final as (

    select
        {%- for column in key_list + value_columns %}
        sequenced.{{ cdc_quote(column) }},
        {%- endfor %}
        sequenced._cdc_op,
        sequenced._cdc_position as _cdc_valid_from_position,
        sequenced._cdc_source_ts as valid_from,
        coalesce(closed_by_truncate.truncated_at, sequenced.next_change_at) as valid_to,
        sequenced.next_position is null and closed_by_truncate.truncated_at is null as is_current,
        sequenced._cdc_source_db,
        sequenced._loaded_at
    from sequenced
    left outer join closed_by_truncate
        on sequenced._message_id = closed_by_truncate._message_id
    where sequenced._cdc_op != 'd'

)

select * from final
{% endmacro %}
