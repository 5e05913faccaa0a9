{% macro _cdc_is_folded_change(relation='') %}
    {#-
        SQL boolean: int_cdc__document_changes folds this change-log row.
        SQL boolean over a change-log row (of stg_cdc__messages): int_cdc__document_changes
        folds it (a keyed change of a folded family, _cdc_folded_families; a truncate or a
        keyless table's change is read as it is). `relation`: the alias qualifying the
        columns, if any.
    -#}
    {%- set prefix = relation ~ '.' if relation else '' -%}
    (
        {{ cdc_lakehouse._cdc_in_list(prefix ~ '_cdc_envelope', cdc_lakehouse._cdc_folded_families()) }}
        and not {{ prefix }}_cdc_is_keyless
        and coalesce({{ prefix }}_cdc_op, '') != 't'
    )
{% endmacro %}
