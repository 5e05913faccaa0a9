{% macro _cdc_table_relations(unique_ids) %}
    {#- The tables behind the given models, looking through views. -#}
    {%- set walk = namespace(pending=unique_ids | list, seen=[], relations=[]) -%}
    {#- breadth-first over the dependency graph; a model graph is finite and acyclic -#}
    {%- for _ in range(graph.nodes | length + 1) if walk.pending -%}
        {%- set unique_id = walk.pending[0] -%}
        {%- set walk.pending = walk.pending[1:] -%}
        {%- set input = graph.nodes.get(unique_id) -%}
        {%- if unique_id not in walk.seen and input is not none and input.resource_type == 'model' -%}
            {%- do walk.seen.append(unique_id) -%}
            {%- set materialized = input.config.materialized -%}
            {%- if materialized in ['view', 'cdc_view', 'ephemeral'] -%}
                {%- set walk.pending = walk.pending + input.depends_on.nodes | list -%}
            {%- else -%}
                {%- set identifier = input.alias ~ ('__cdc_state' if materialized in ['cdc_current_state', 'cdc_history'] else '') -%}
                {%- do walk.relations.append(adapter.get_relation(
                      database=input.database, schema=input.schema, identifier=identifier)) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(walk.relations) }}
{% endmacro %}
