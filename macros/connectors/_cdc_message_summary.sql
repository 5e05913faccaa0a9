{% macro _cdc_message_summary() %}
    {#- The kinds of rows each write of stg_cdc__messages summarises (its config `cdc_summary`). -#}
    {{ return({
        'keyless': "_cdc_message_kind = 'change' and _cdc_is_keyless",
        'truncate': "_cdc_message_kind = 'change' and _cdc_op = 't'",
        'folded': "_cdc_message_kind = 'change' and " ~ cdc_lakehouse._cdc_is_folded_change() | trim,
        'control': "_cdc_message_kind in ('transaction', 'schema_change', 'signal')",
    }) }}
{% endmacro %}
