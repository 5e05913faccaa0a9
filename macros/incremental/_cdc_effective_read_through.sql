{% macro _cdc_effective_read_through(relation) %}
    {#-
        The `_loaded_at` through which a table holds everything its inputs hold, as of now.
        Its recorded read-through (_cdc_read_through), or later: a model whose inputs gained
        no row it reads (_cdc_has_nothing_new) is left as it is without recording anything,
        and it is complete through what its inputs are complete through (this, recursively,
        for each table behind its inputs; the oldest of them). Only for the tables of the
        materializations that leave a table so (`cdc_incremental`, `cdc_current_state`,
        `cdc_history`: their `__cdc_state`). None when the recorded one is not known.
        What a model records as read through after a write (_cdc_inputs_read_through):
        the oldest recorded one would be behind what it read from an input that is
        complete through more, and its next run would read those rows again.
    -#}
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
    {#-
        The model whose table `relation` is, when it may be left as it is without recording.
        The graph node of a `cdc_incremental` model whose relation is `relation`, or of a
        `cdc_current_state` or `cdc_history` model whose state table (`<model>__cdc_state`)
        it is; none otherwise.
    -#}
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
