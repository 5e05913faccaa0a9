{% macro cdc_declared_table_keys() %}
    {#-
        {lower-case source table name: [lower-case key columns]} for every table whose
        key is declared: the `meta.cdc_key` of typed change-log models (matched by their
        `meta.cdc_source_table`), then the project var `cdc_table_keys`, which wins.
    -#}
    {%- set keys = {} -%}
    {%- if execute -%}
        {%- for node in graph.nodes.values() if node.resource_type == 'model' -%}
            {%- set meta = node.config.meta or {} -%}
            {%- if meta.get('cdc_source_table') and meta.get('cdc_key') -%}
                {%- do keys.update({
                    meta['cdc_source_table'] | lower: meta['cdc_key'] | map('lower') | list
                }) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- for table, columns in var('cdc_table_keys', {}).items() -%}
        {%- do keys.update({table | lower: columns | map('lower') | list}) -%}
    {%- endfor -%}
    {{ return(keys) }}
{% endmacro %}
