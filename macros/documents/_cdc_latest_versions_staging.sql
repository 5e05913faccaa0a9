{% macro _cdc_latest_versions_staging(registry) %}
    {#- The staging table of a table of latest versions. -#}
    {{ return(registry.incorporate(
        path={'identifier': registry.identifier ~ '__compacting'}, type='table')) }}
{% endmacro %}
