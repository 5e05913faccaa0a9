{% macro _cdc_in_list(expression, values) %}
    {#- SQL: `expression in (...)` for a list of strings. -#}
    {%- if values is none -%}
        true
    {%- elif values | length == 0 -%}
        false
    {%- else -%}
        {{ expression }} in (
        {%- for value in values %}
            '{{ cdc_lakehouse._cdc_escape_string(value) }}'{{ ',' if not loop.last }}
        {%- endfor %}
        )
    {%- endif -%}
{% endmacro %}
