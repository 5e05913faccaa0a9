{% macro _cdc_node_of(relation) %}
    {#- The model node whose relation is `relation` (matched by schema and alias), or none. -#}
    {%- for node in graph.nodes.values() if node.resource_type == 'model' -%}
        {%- if node.alias | lower == relation.identifier | lower
              and node.schema | lower == relation.schema | lower -%}
            {{ return(node) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}
