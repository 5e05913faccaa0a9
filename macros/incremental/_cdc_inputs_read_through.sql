{% macro _cdc_inputs_read_through(node=none) %}
    {#- The `_loaded_at` through which every input of a model is complete. -#}
    {%- set node = node or model -%}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set values = [] -%}
    {%- for relation in cdc_lakehouse._cdc_table_relations(node.depends_on.nodes) -%}
        {%- do values.append(cdc_lakehouse._cdc_effective_read_through(relation)) -%}
    {%- endfor -%}
    {%- if not values or none in values -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(values | min) }}
{% endmacro %}
