{% macro _cdc_is_folded_change(relation='') %}
    {#- SQL boolean: int_cdc__document_changes folds this change-log row. -#}
    {%- set prefix = relation ~ '.' if relation else '' -%}
    (
        {{ cdc_lakehouse._cdc_in_list(prefix ~ '_cdc_envelope', cdc_lakehouse._cdc_folded_families()) }}
        and not {{ prefix }}_cdc_is_keyless
        and coalesce({{ prefix }}_cdc_op, '') != 't'
    )
{% endmacro %}
