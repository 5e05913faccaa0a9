{% macro _cdc_spark_conf(key) %}
    {#- A Spark SQL setting of the session, read once per invocation (none when unset). -#}
    {%- set settings = cdc_lakehouse._cdc_invocation_cache('spark_conf') -%}
    {%- if execute and key not in settings -%}
        {%- set rows = run_query('set ' ~ key).rows -%}
        {%- do settings.update({key: rows[0][1] if rows and rows[0][1] != '<undefined>' else none}) -%}
    {%- endif -%}
    {{ return(settings.get(key)) }}
{% endmacro %}
