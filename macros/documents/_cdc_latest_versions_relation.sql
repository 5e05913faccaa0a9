{% macro _cdc_latest_versions_relation(relation) %}
    {#- The relation of a fold model's table of latest versions. -#}
    {{ return(relation.incorporate(
        path={'identifier': relation.identifier ~ '__cdc_latest'}, type='table')) }}
{% endmacro %}
