{% macro cdc_after_staging(relation) %}
    {{ return(adapter.dispatch('cdc_after_staging', 'cdc_lakehouse')(relation)) }}
{% endmacro %}

{% macro default__cdc_after_staging(relation) %}
    {#- The default `cdc_after_staging`, which does nothing. -#}
    {{ return('') }}
{% endmacro %}
