{% macro _cdc_connector_families() %}
    {#- The registered connector families, in detection order. -#}
    {{ return(cdc_lakehouse.cdc_var('cdc_connector_families')) }}
{% endmacro %}
