{% macro _cdc_has_nothing_new(relation, node=none) %}
    {#-
        Whether no input of a model gained a row it reads since its table's read-through.
        True when `relation` (the table of `node`, default the model being run) finished
        its last write (_cdc_read_through) and every table behind the model's inputs
        (_cdc_table_relations) holds no row the model reads after that read-through:
        its rows of the kinds the model's config `cdc_input_kinds` names, or any row
        (_cdc_rows_through). Then the model holds everything its inputs hold, and a run
        leaves it as it is without recording anything (_cdc_is_up_to_date): what it is
        complete through follows from its inputs (_cdc_effective_read_through). False when
        an input's last write did not finish, the model has no table input, or a gold
        state staged a run it has not applied (`cdc.run.staged`).
    -#}
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
