{% macro _cdc_is_up_to_date(relation, inputs_read_through) %}
    {#-
        Whether a table already holds everything its inputs hold.
        True when `relation` (a table this run would otherwise write) was built by the model
        as it is now (_cdc_model_fingerprint) and already holds everything its inputs hold:
        it read through `inputs_read_through` (_cdc_inputs_read_through), or no input gained
        a row it reads since it did (_cdc_has_nothing_new: its kinds of rows, config
        `cdc_input_kinds`). The run can leave it without a Spark job and without recording
        anything. Never on a full refresh, nor when it is not known.
    -#}
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
