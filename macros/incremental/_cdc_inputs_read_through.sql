{% macro _cdc_inputs_read_through(node=none) %}
    {#-
        The `_loaded_at` through which every input of a model is complete.
        The `_loaded_at` through which every input of `node` (default: the model being
        run) is complete: the oldest of the tables it selects from, looking through views
        and ephemeral models to the tables behind them, each as it is now
        (_cdc_effective_read_through: a table left as it is because nothing it reads
        arrived is complete through what its own inputs are). Seeds and
        sources do not count. None when an input does not know its own (a table built
        before this bookkeeping, or left half-written by a killed run) or when the node
        reads no such table (bronze: its input is the landing folder).
    -#}
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
