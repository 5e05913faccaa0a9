{% macro cdc_after_staging(relation) %}
    {#- Extension point of cdc_current_state between staging a run's buckets and
        overwriting them (dispatched: a project may define `spark__cdc_after_staging`).
        Nothing by default; the crash-recovery tests override it to stop a run there. -#}
    {{ return(adapter.dispatch('cdc_after_staging', 'cdc_lakehouse')(relation)) }}
{% endmacro %}

{% macro default__cdc_after_staging(relation) %}
    {#- The default `cdc_after_staging`, which does nothing. -#}
    {{ return('') }}
{% endmacro %}
