{% macro _cdc_quote_list(names, prefix='') %}
    {#- A comma-separated list of quoted, qualified column names. -#}
    {%- set items = [] -%}
    {%- for name in names -%}
        {%- do items.append(prefix ~ cdc_lakehouse.cdc_quote(name)) -%}
    {%- endfor -%}
    {{- return(items | join(', ')) -}}
{% endmacro %}
