{% macro _cdc_gold_delta_tables(select=none) %}
    {#- The Delta state tables of the project's state-backed gold models. -#}
    {%- set relations = [] -%}
    {%- if not execute -%}
        {{ return(relations) }}
    {%- endif -%}
    {%- if select is string -%}
        {%- set select = [select] -%}
    {%- endif -%}
    {%- for node in graph.nodes.values()
          if node.resource_type == 'model'
          and node.config.materialized in ['cdc_current_state', 'cdc_history']
          and (select is none or node.name in select) -%}
        {%- set existing = adapter.get_relation(
              database=node.database, schema=node.schema,
              identifier=node.alias ~ '__cdc_state') -%}
        {%- if existing is not none and existing.is_delta -%}
            {%- do relations.append(existing) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(relations) }}
{% endmacro %}
