{% macro _cdc_row_image_fold(bases, changes) %}
    {#- The fold of row changes onto their rows, for families with partial images. -#}
    {%- set current = 'fold_state.rows[change_row._cdc_key]' -%}
    {%- set prior -%}
        case
            when not change_row.is_key_change then {{ current }}
            when fold_state.retired.message_id = change_row._message_id
                and fold_state.retired.row.doc is not null
                then fold_state.retired.row
            when change_row.carried_base.doc is not null then change_row.carried_base
            else {{ current }}
        end
    {%- endset -%}
    {%- set next_row -%}
        named_struct(
            'doc', case
                when change_row._cdc_op = 'd' then cast(null as string)
                when change_row._cdc_op in ('c', 'r') then change_row._cdc_after
                when change_row._cdc_op = 'u'
                    then {{ cdc_lakehouse._cdc_json_overlay("coalesce(prior_row.doc, '{}')", 'change_row._cdc_after') }}
            end,
            'partial', case
                when change_row._cdc_op in ('c', 'r') then false
                when change_row._cdc_op = 'u' then prior_row.doc is null or coalesce(prior_row.partial, false)
                else coalesce(prior_row.partial, false)
            end
        )
    {%- endset -%}
    {%- set next_state -%}
        named_struct(
            'rows', map_concat(
                map_filter(fold_state.rows, (row_key, row_value) -> row_key != change_row._cdc_key),
                map(change_row._cdc_key, next_row)
            ),
            'retired', case
                when change_row._cdc_op = 'd'
                    then named_struct('message_id', change_row._message_id, 'row', prior_row)
                else fold_state.retired
            end,
            'results', concat(fold_state.results, array(named_struct(
                'doc', next_row.doc,
                'partial', next_row.partial,
                'error', cast(null as string),
                'previous', prior_row.doc
            )))
        )
    {%- endset -%}
    aggregate(
        {{ changes }},
        named_struct(
            'rows', {{ bases }},
            'retired', cast(null as struct<message_id: string, row: struct<doc: string, partial: boolean>>),
            'results', cast(array() as array<struct<doc: string, partial: boolean, error: string, previous: string>>)
        ),
        (fold_state, change_row) -> {{ cdc_lakehouse._cdc_let(prior, 'prior_row', cdc_lakehouse._cdc_let(next_row, 'next_row', next_state)) }},
        fold_state -> fold_state.results
    )
{% endmacro %}
