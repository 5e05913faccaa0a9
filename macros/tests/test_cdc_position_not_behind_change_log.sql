{% test cdc_position_not_behind_change_log(model, changes, key_columns) %}
    {#-
        Gold never goes backwards: every live row of `model` holds the newest readable
        change of its key in the change log `changes` (same key columns), no delete or
        truncate came after it, and no row exists that no change explains. Returns the
        offending rows with what the change log says.
    -#}
    {%- set change_columns = adapter.get_columns_in_relation(changes) | map(attribute='name') | map('lower') | list -%}
    {%- set model_columns = adapter.get_columns_in_relation(model) | map(attribute='name') | map('lower') | list -%}
    {%- set join_keys = [] -%}
    {%- for column in key_columns -%}
        {%- do join_keys.append('live.' ~ column ~ ' <=> latest.' ~ column) -%}
    {%- endfor -%}

with

readable as (

    select * from {{ changes }}
    {%- if '_cdc_error_reason' in change_columns %}
    where _cdc_error_reason is null
    {%- endif %}

),

latest as (

    select
        {{ key_columns | join(', ') }},
        max(_cdc_position) as latest_position,
        max_by(_cdc_op, _cdc_sort_key) as latest_op
    from readable
    where _cdc_op != 't'
    group by {{ key_columns | join(', ') }}

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

    select * from {{ model }}
    {%- if '_cdc_is_deleted' in model_columns %}
    where not _cdc_is_deleted
    {%- endif %}

),

final as (

    select
        {%- for column in key_columns %}
        live.{{ column }},
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
{% endtest %}
