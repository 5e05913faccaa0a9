{% macro _cdc_loaded_files_relation(bronze_relation) %}
    {#- The relation of bronze's table of loaded files. -#}
    {{ return(bronze_relation.incorporate(
        path={'identifier': bronze_relation.identifier ~ '__cdc_files'}, type='table')) }}
{% endmacro %}
