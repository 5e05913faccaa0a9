{% macro _cdc_select_list(columns, overrides={}) %}
    {#-
        A select list of `columns`, some replaced by overrides.
        A select list of `columns`, one a line, in order; `overrides` maps a column to the
        expression (with its alias) that selects it instead.
    -#}
    {%- set items = [] -%}
    {%- for column in columns -%}
        {%- do items.append(overrides.get(column, column)) -%}
    {%- endfor -%}
    {{ items | join(',\n        ') }}
{%- endmacro %}
