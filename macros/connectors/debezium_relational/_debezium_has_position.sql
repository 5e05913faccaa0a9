{% macro _debezium_has_position(source) %}
    {#-
        SQL boolean: the `source` block carries a source position field.
        SQL boolean: the `source` block carries a field of a source position (of any
        relational connector: _debezium_position), whether or not it reads as one. False
        for a message without a source block.
    -#}
    coalesce(
        {{ source }}.commit_scn, {{ source }}.scn, {{ source }}.rs_id, {{ source }}.ssn,
        {{ source }}.change_lsn, {{ source }}.commit_lsn, {{ source }}.event_serial_no,
        {{ source }}.lsn, {{ source }}.file, {{ source }}.pos, {{ source }}.commit_ts
    ) is not null
{% endmacro %}
