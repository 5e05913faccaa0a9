{% macro debezium_connector(source) %}
    {#-
        Which Debezium relational connector wrote a message, from its `source` block:
        `source.connector` when present (lower-cased), otherwise the fields only one
        connector writes (the Oracle documentation example has no `connector`).
        SQL Server and Db2 share the LSN fields; without `connector`, a message with
        `event_serial_no` is SQL Server and one without is Db2 (both order alike).
        Null when nothing matches: the message is quarantined, never guessed.
    -#}
    case
        when {{ source }}.connector is not null then lower({{ source }}.connector)
        when {{ source }}.commit_scn is not null
            or {{ source }}.scn is not null
            or {{ source }}.rs_id is not null then 'oracle'
        when {{ source }}.event_serial_no is not null then 'sqlserver'
        when {{ source }}.change_lsn is not null
            or {{ source }}.commit_lsn is not null then 'db2'
        when {{ source }}.lsn is not null then 'postgresql'
        when {{ source }}.file is not null and {{ source }}.pos is not null then 'mysql'
    end
{% endmacro %}
