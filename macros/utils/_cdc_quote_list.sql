{% macro _cdc_quote_list(names, prefix='') %}
    {#-
        A comma-separated list of quoted, qualified column names.
        The column names `names`, each quoted by cdc_quote and qualified by `prefix`
        (`alias.`), joined by commas: a select, group-by or partition list.
    -#}
    {%- set items = [] -%}
    {%- for name in names -%}
        {%- do items.append(prefix ~ cdc_lakehouse.cdc_quote(name)) -%}
    {%- endfor -%}
    {{- return(items | join(', ')) -}}
{% endmacro %}
