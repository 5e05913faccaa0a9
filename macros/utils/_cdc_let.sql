{% macro _cdc_let(value, name, body) -%}
    {#-
        SQL expression: `body` with `name` bound to `value`, computed once.
        SQL expression: `body` with the lambda variable `name` bound to `value`, computed
        once per row (`element_at(transform(array(value), name -> body), 1)`), where
        repeating `value` in `body` would repeat its work and grow Spark's plan.
    -#}
    element_at(transform(array({{ value }}), {{ name }} -> {{ body }}), 1)
{%- endmacro %}
