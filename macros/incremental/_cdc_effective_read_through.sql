{% macro _cdc_effective_read_through(relation) %}
    {#- The `_loaded_at` through which a table holds everything its inputs hold, as of now. -#}
    {%- set read_through = cdc_lakehouse._cdc_read_through(relation) -%}
    {%- if read_through is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set node = cdc_lakehouse._cdc_table_node(relation) -%}
    {%- if node is none or not cdc_lakehouse._cdc_has_nothing_new(relation, node) -%}
        {{ return(read_through) }}
    {%- endif -%}
    {%- set values = [] -%}
    {%- for input in cdc_lakehouse._cdc_table_relations(node.depends_on.nodes) -%}
        {%- do values.append(cdc_lakehouse._cdc_effective_read_through(input)) -%}
    {%- endfor -%}
    {%- if none in values -%}
        {{ return(read_through) }}
    {%- endif -%}
    {{ return([read_through, values | min] | max) }}
{% endmacro %}

{% macro _cdc_table_node(relation) %}
    {#- The model whose table `relation` is, when it may be left as it is without recording. -#}
    {%- set identifier = relation.identifier | lower -%}
    {%- set state = identifier.endswith('__cdc_state') -%}
    {%- set alias = identifier[:-11] if state else identifier -%}
    {%- set materializations = ['cdc_current_state', 'cdc_history'] if state else ['cdc_incremental', 'incremental'] -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model' -%}
        {%- if node.alias | lower == alias and node.schema | lower == relation.schema | lower
              and node.config.materialized in materializations -%}
            {{ return(node) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}
