{% macro _cdc_is_up_to_date(relation, inputs_read_through) %}
    {#-
        Whether a table already holds everything its inputs hold.
        True when `relation` (a table this run would otherwise write) already holds
        everything its inputs hold, `inputs_read_through` (_cdc_inputs_read_through), and was
        built by the model as it is now (_cdc_model_fingerprint): the run can leave it
        without a Spark job. Never on a full refresh, nor when either side is not known.
    -#}
    {%- if not execute or relation is none or inputs_read_through is none or should_full_refresh() -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set properties = cdc_lakehouse._cdc_table_properties(relation) -%}
    {{ return(
        properties.get('cdc.read_through') == inputs_read_through
        and properties.get('cdc.reading_through') == inputs_read_through
        and properties.get('cdc.model_fingerprint') == cdc_lakehouse._cdc_model_fingerprint()
    ) }}
{% endmacro %}
