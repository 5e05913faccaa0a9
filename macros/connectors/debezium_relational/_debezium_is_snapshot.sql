{% macro _debezium_is_snapshot(source) %}
    {#-
        SQL boolean: the `source` block marks a snapshot read.
        `source.snapshot` arrives as a boolean (`false`) or a string (`"true"`, `"last"`,
        `"first"`, `"incremental"`, `"false"`...): true for every snapshot read.
    -#}
    coalesce(lower({{ source }}.snapshot) not in ('false', ''), false)
{% endmacro %}
