{% macro _cdc_escape_string(value) %}
    {#- Escapes a value for use inside a single-quoted Spark SQL string literal. -#}
    {{- return((value | string).replace('\\', '\\\\').replace("'", "\\'")) -}}
{% endmacro %}
