{% macro _cdc_document_families() %}
    {#-
        The registered families whose changes are documents.
        Their changes are folded by int_cdc__document_changes (a patch needs the document before
        it), not read as row images.
    -#}
    {{ return(cdc_lakehouse._cdc_connector_families() | select('in', ['debezium_mongodb']) | list) }}
{% endmacro %}
