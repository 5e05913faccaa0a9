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
