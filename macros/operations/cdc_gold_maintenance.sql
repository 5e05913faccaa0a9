{% macro cdc_optimize_gold(select=none) -%}
    {%- set relations = cdc_lakehouse._cdc_gold_delta_tables(select) -%}
    {%- if relations | length == 0 -%}
        {{ log("cdc_optimize_gold: no gold state table on Delta.", info=True) }}
    {%- endif -%}
    {%- for relation in relations -%}
        {%- do run_query('optimize ' ~ relation) -%}
        {{ log("cdc_optimize_gold: optimized " ~ relation, info=True) }}
    {%- endfor -%}
{% endmacro %}

{% macro cdc_vacuum_gold(select=none, retain_hours=168, dry_run=false) -%}
    {%- if retain_hours is none or retain_hours | int < 0 or retain_hours | string != retain_hours | int | string -%}
        {{ exceptions.raise_compiler_error(
            "cdc_vacuum_gold: retain_hours must be a whole number of hours >= 0, got " ~ retain_hours) }}
    {%- endif -%}
    {%- set relations = cdc_lakehouse._cdc_gold_delta_tables(select) -%}
    {%- if relations | length == 0 -%}
        {{ log("cdc_vacuum_gold: no gold state table on Delta.", info=True) }}
    {%- endif -%}
    {%- for relation in relations -%}
        {%- set result = run_query(
              'vacuum ' ~ relation ~ ' retain ' ~ retain_hours | int ~ ' hours'
              ~ (' dry run' if dry_run else '')) -%}
        {{ log("cdc_vacuum_gold: " ~ relation ~ (
            ": " ~ result.rows | length ~ " files would be deleted" if dry_run else ": vacuumed")
            ~ " (retaining " ~ retain_hours | int ~ " hours)", info=True) }}
    {%- endfor -%}
{% endmacro %}

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
