{% macro _debezium_is_snapshot(source) %}
    {#- SQL boolean: the `source` block marks a snapshot read. -#}
    coalesce(lower({{ source }}.snapshot) not in ('false', ''), false)
{% endmacro %}
