{% macro _cdc_select_list(columns, overrides={}) %}
    {#- A select list of `columns`, some replaced by overrides. -#}
    {%- set items = [] -%}
    {%- for column in columns -%}
        {%- do items.append(overrides.get(column, column)) -%}
    {%- endfor -%}
    {{ items | join(',\n        ') }}
{%- endmacro %}
