{% macro _cdc_document_families() %}
    {#- The registered families whose changes are documents. -#}
    {{ return(cdc_lakehouse._cdc_connector_families() | select('in', ['debezium_mongodb']) | list) }}
{% endmacro %}
