{% macro _cdc_has_nothing_new(relation, node=none) %}
    {#- Whether no input of a model gained a row it reads since its table's read-through. -#}
    {%- set node = node or model -%}
    {%- set read_through = cdc_lakehouse._cdc_read_through(relation) -%}
    {%- if read_through is none
          or cdc_lakehouse._cdc_table_properties(relation).get('cdc.run.staged') -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set inputs = cdc_lakehouse._cdc_table_relations(node.depends_on.nodes) -%}
    {%- if not inputs or none in inputs -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set kinds = node.config.get('cdc_input_kinds') -%}
    {%- for input in inputs -%}
        {%- set rows_through = cdc_lakehouse._cdc_rows_through(input, kinds) -%}
        {%- if rows_through is none or rows_through > read_through -%}
            {{ return(false) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(true) }}
{% endmacro %}
