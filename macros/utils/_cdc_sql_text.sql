{% macro _cdc_quote_list(names, prefix='') %}
    {#- A comma-separated list of quoted, qualified column names. -#}
    {%- set items = [] -%}
    {%- for name in names -%}
        {%- do items.append(prefix ~ cdc_lakehouse.cdc_quote(name)) -%}
    {%- endfor -%}
    {{- return(items | join(', ')) -}}
{% endmacro %}

{% macro _cdc_select_list(columns, overrides={}) %}
    {#- A select list of `columns`, some replaced by overrides. -#}
    {%- set items = [] -%}
    {%- for column in columns -%}
        {%- do items.append(overrides.get(column, column)) -%}
    {%- endfor -%}
    {{ items | join(',\n        ') }}
{%- endmacro %}

{% macro _cdc_escape_string(value) %}
    {#- Escapes a value for use inside a single-quoted Spark SQL string literal. -#}
    {{- return((value | string).replace('\\', '\\\\').replace("'", "\\'")) -}}
{% endmacro %}

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

{% macro _cdc_let(value, name, body) -%}
    {#- SQL expression: `body` with `name` bound to `value`, computed once. -#}
    element_at(transform(array({{ value }}), {{ name }} -> {{ body }}), 1)
{%- endmacro %}
