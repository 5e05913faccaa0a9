{% macro _cdc_connector_families() %}
    {#- The registered connector families, in detection order. -#}
    {{ return(cdc_lakehouse.cdc_var('cdc_connector_families')) }}
{% endmacro %}

{% macro _cdc_document_families() %}
    {#- The registered families whose changes are documents. -#}
    {{ return(cdc_lakehouse._cdc_connector_families() | select('in', ['debezium_mongodb']) | list) }}
{% endmacro %}

{% macro _cdc_folded_families() %}
    {#- The registered families whose keyed changes are folded onto the row before them. -#}
    {%- set folded = [] -%}
    {%- for family in cdc_lakehouse._cdc_connector_families() -%}
        {%- if family in cdc_lakehouse._cdc_document_families() or cdc_lakehouse.cdc_family_hook(family, 'folds_row_images')() -%}
            {%- do folded.append(family) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(folded) }}
{% endmacro %}

{% macro _cdc_is_folded_change(relation='') %}
    {#- SQL boolean: int_cdc__document_changes folds this change-log row. -#}
    {%- set prefix = relation ~ '.' if relation else '' -%}
    (
        {{ cdc_lakehouse._cdc_in_list(prefix ~ '_cdc_envelope', cdc_lakehouse._cdc_folded_families()) }}
        and not {{ prefix }}_cdc_is_keyless
        and coalesce({{ prefix }}_cdc_op, '') != 't'
    )
{% endmacro %}

{% macro _cdc_change_log_columns() %}
    {#- The columns of the change log's common shape, in their order (int_cdc__change_log and the models it reads). -#}
    {{ return([
        '_message_id', '_cdc_envelope', '_cdc_connector', '_cdc_op', '_cdc_source_db',
        '_cdc_source_schema', '_cdc_source_table', '_cdc_source_id', '_cdc_key', '_cdc_before',
        '_cdc_after', '_cdc_is_partial', '_cdc_column_types', '_cdc_position', '_cdc_sort_key',
        '_cdc_is_snapshot', '_cdc_snapshot', '_cdc_source_ts', '_cdc_emitted_ts',
        '_cdc_transaction_id', '_kafka_topic', '_kafka_partition', '_kafka_offset', '_source_file',
        '_source_line', '_loaded_at', '_load_id',
    ]) }}
{% endmacro %}

{% macro _cdc_family_case(hook, family_column, message, families) %}
    {#- One SQL `case` giving a hook's value for the family of each message. -#}
    case {{ family_column }}
    {%- for family in families %}
        when '{{ family }}' then {{ cdc_lakehouse.cdc_family_hook(family, hook)(message, *varargs) }}
    {%- endfor %}
    end
{% endmacro %}

{% macro _cdc_message_summary() %}
    {#- The kinds of rows each write of stg_cdc__messages summarises (its config `cdc_summary`). -#}
    {{ return({
        'keyless': "_cdc_message_kind = 'change' and _cdc_is_keyless",
        'truncate': "_cdc_message_kind = 'change' and _cdc_op = 't'",
        'folded': "_cdc_message_kind = 'change' and " ~ cdc_lakehouse._cdc_is_folded_change() | trim,
        'control': "_cdc_message_kind in ('transaction', 'schema_change', 'signal')",
        'postgresql_delete': "_cdc_message_kind = 'change' and _cdc_op = 'd' and _cdc_connector = 'postgresql'",
        'unavailable': "_cdc_message_kind = 'change' and " ~ cdc_lakehouse._debezium_holds_unavailable('_cdc_after') | trim,
    }) }}
{% endmacro %}

{% macro _cdc_announces_table_changes(column='message_value') %}
    {#- SQL boolean: the message text `column` may be a Debezium schema-change event. -#}
    {{ return(column ~ " like '%\"tableChanges\"%'") }}
{% endmacro %}
