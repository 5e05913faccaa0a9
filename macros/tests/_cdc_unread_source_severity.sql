{% macro _cdc_unread_source_severity() %}
    {#- The var cdc_unread_source_severity: `error` or `warn`. -#}
    {%- set accepted = ['error', 'warn'] -%}
    {%- set value = cdc_lakehouse.cdc_var('cdc_unread_source_severity') -%}
    {%- if value is not string or value | lower not in accepted -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_unread_source_severity=" ~ value ~ " is not one of: " ~ accepted | join(', ')
            ~ " (error: a run that reads nothing of a source fails; warn: it warns)") }}
    {%- endif -%}
    {{ return(value | lower) }}
{% endmacro %}
