{% macro cdc_skip_unless_new_input(new_input=none, where='true', since=none) %}
    {#-
        Decides whether the model being run has anything new to read; when it has not,
        returns the comment that makes the `cdc_incremental` materialization leave its table
        as it is without a Spark job (render the result, `{{ ... }}`), else ''. What is new:
          omitted    the model's inputs hold something its table has not read (false only
                     for an incremental model that is up to date with them and unchanged:
                     _cdc_is_up_to_date, which the materialization also checks, so that a
                     model skips its own compile-time queries: stg_cdc__messages); for a
                     model with config `cdc_input_kinds`, something of those kinds, and on
                     its first build or a full refresh, whether its inputs ever held such
                     rows (what their writes recorded, _cdc_rows_through: no query)
          relation   a row of it meets `where` and was loaded after `since` (a timestamp
                     literal, cdc_new_input_since(); none: any row): one `limit 1` probe
                     (_cdc_has_rows), true at parse time and while the relation does not
                     exist; the table then records that it read through what its inputs
                     hold, so the models that read it skip too
          true/false the model's own answer (bronze: whether a new landing file arrived)
        Skip only when that is certain.
    -#}
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
    {#-
        Whether the inputs of a model may hold a row of the kinds it reads.
        False only when `node` names kinds in its config `cdc_input_kinds` and every table
        behind its inputs recorded that none of its writes held rows of them
        (_cdc_rows_through is ''): a first build or full refresh then plans its SQL over
        nothing. True at parse time, without such a config, or when anything is not known.
    -#}
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
