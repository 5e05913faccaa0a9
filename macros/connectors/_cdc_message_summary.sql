{% macro _cdc_message_summary() %}
    {#-
        The kinds of rows each write of stg_cdc__messages summarises (its config `cdc_summary`).
        {kind: SQL condition over its columns}, for the models that read one kind only and
        name it in their config `cdc_input_kinds`: int_cdc__keyless_changes (keyless rows
        and truncates), int_cdc__document_changes (folded changes, _cdc_is_folded_change),
        int_cdc__control_messages (transaction, schema-change and signal messages). Each
        condition is the model's own filter, or wider.
    -#}
    {{ return({
        'keyless': "_cdc_message_kind = 'change' and _cdc_is_keyless",
        'truncate': "_cdc_message_kind = 'change' and _cdc_op = 't'",
        'folded': "_cdc_message_kind = 'change' and " ~ cdc_lakehouse._cdc_is_folded_change() | trim,
        'control': "_cdc_message_kind in ('transaction', 'schema_change', 'signal')",
    }) }}
{% endmacro %}
