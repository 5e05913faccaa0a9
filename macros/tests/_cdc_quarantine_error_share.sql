{% macro _cdc_quarantine_error_share() %}
    {#- The var cdc_quarantine_error_share as a number in (0, 1]. -#}
    {%- set value = cdc_lakehouse.cdc_var('cdc_quarantine_error_share') -%}
    {%- set number = value | float(-1) if value is not boolean else -1 -%}
    {%- if number <= 0 or number > 1 -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_quarantine_error_share=" ~ value ~ " is not accepted: a number above 0 "
            ~ "and at most 1 (1: error only when every message of the run was quarantined; "
            ~ "0.05: from 5%)") }}
    {%- endif -%}
    {{ return(number) }}
{% endmacro %}
