{% macro _debezium_has_position(source) %}
    {#- SQL boolean: the `source` block carries a source position field. -#}
    coalesce(
        {{ source }}.commit_scn, {{ source }}.scn, {{ source }}.rs_id, {{ source }}.ssn,
        {{ source }}.change_lsn, {{ source }}.commit_lsn, {{ source }}.event_serial_no,
        {{ source }}.lsn, {{ source }}.file, {{ source }}.pos, {{ source }}.commit_ts
    ) is not null
{% endmacro %}
