{% macro cdc_skip_unless_new_input(new_input=none, where='true', since=none) -%}
    {%- if new_input is none and not cdc_lakehouse.cdc_is_incremental() -%}
        {%- set has_new_input = cdc_lakehouse._cdc_inputs_ever_held(model) -%}
    {%- elif new_input is none -%}
        {%- set has_new_input = not cdc_lakehouse._cdc_is_up_to_date(
            this, cdc_lakehouse._cdc_inputs_read_through()) -%}
    {%- elif new_input is boolean -%}
        {%- set has_new_input = new_input -%}
    {%- else -%}
        {%- set has_new_input = cdc_lakehouse._cdc_has_rows(new_input, where, loaded_after=since) -%}
    {%- endif -%}
    {{ return('' if has_new_input else cdc_lakehouse._cdc_no_new_input_marker()) }}
{% endmacro %}

{% macro _cdc_no_new_input_marker() %}
    {#- The comment cdc_skip_unless_new_input renders and the cdc_incremental materialization looks for. -#}
    {{ return('/* cdc: no new input */') }}
{% endmacro %}

{% macro _cdc_inputs_ever_held(node) %}
    {#- Whether the inputs of a model may hold a row of the kinds it reads. -#}
    {%- set kinds = node.config.get('cdc_input_kinds') -%}
    {%- if not execute or not kinds -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set inputs = cdc_lakehouse._cdc_table_relations(node.depends_on.nodes) -%}
    {%- if not inputs or none in inputs -%}
        {{ return(true) }}
    {%- endif -%}
    {%- for input in inputs -%}
        {%- if cdc_lakehouse._cdc_rows_through(input, kinds) != '' -%}
            {{ return(true) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(false) }}
{% endmacro %}
