{% macro cdc_quote(name) -%}
    {%- set quote_character = adapter.quote('')[0] -%}
    {{- return(adapter.quote((name | string).replace(quote_character, quote_character ~ quote_character))) -}}
{% endmacro %}
