{% macro _cdc_is_up_to_date(relation, inputs_read_through) %}
    {#- Whether a table already holds everything its inputs hold. -#}
    {%- if not execute or relation is none or should_full_refresh() -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set properties = cdc_lakehouse._cdc_table_properties(relation) -%}
    {%- if properties.get('cdc.model_fingerprint') != cdc_lakehouse._cdc_model_fingerprint() -%}
        {{ return(false) }}
    {%- endif -%}
    {{ return(
        (inputs_read_through is not none
            and properties.get('cdc.read_through') == inputs_read_through
            and properties.get('cdc.reading_through') == inputs_read_through)
        or cdc_lakehouse._cdc_has_nothing_new(relation)
    ) }}
{% endmacro %}

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

{% macro _cdc_model_fingerprint(node=none) %}
    {#- An md5 of what defines a model apart from its inputs' data. -#}
    {%- set node = node or model -%}
    {%- set parts = [node.raw_code, tojson(node.config, sort_keys=true)] -%}
    {%- for name, column in (node.columns or {}).items() | sort -%}
        {%- do parts.append(name ~ ' ' ~ (column.data_type or '') ~ ' ' ~ tojson(column.meta or {}, sort_keys=true)) -%}
    {%- endfor -%}
    {{ return(local_md5(parts | join('\n'))) }}
{% endmacro %}

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
    {%- set inputs_read_through = cdc_lakehouse._cdc_inputs_read_through(node) -%}
    {{ return(read_through if inputs_read_through is none else [read_through, inputs_read_through] | max) }}
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

{% macro _cdc_rows_through(relation, kinds=none) %}
    {#- Through which `_loaded_at` a table may hold rows of the given kinds. -#}
    {%- set read_through = cdc_lakehouse._cdc_read_through(relation) -%}
    {%- if read_through is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set properties = cdc_lakehouse._cdc_table_properties(relation) -%}
    {%- set tracked = (properties.get('cdc.summary.kinds') or '').split(',') -%}
    {%- if kinds and properties.get('cdc.summary.kinds')
          and kinds | reject('in', tracked) | list | length == 0 -%}
        {%- set values = [] -%}
        {%- for kind in kinds -%}
            {%- set value = properties.get('cdc.summary.' ~ kind) or 'none' -%}
            {%- do values.append('' if value == 'none' else value) -%}
        {%- endfor -%}
        {{ return(values | max) }}
    {%- endif -%}
    {{ return(properties.get('cdc.rows_through') or read_through) }}
{% endmacro %}

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
