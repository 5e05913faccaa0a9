{% macro _cdc_let(value, name, body) -%}
    {#- SQL expression: `body` with `name` bound to `value`, computed once. -#}
    element_at(transform(array({{ value }}), {{ name }} -> {{ body }}), 1)
{%- endmacro %}
