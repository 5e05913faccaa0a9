{% macro _debezium_is_heartbeat(message) %}
    {#-
        SQL boolean: the message is a Debezium heartbeat.
        SQL boolean: is the message a Debezium heartbeat? Its value is `{"ts_ms": ...}`
        (schema-wrapped or not: no op, source, status or table changes) and it came from a
        `__debezium-heartbeat.<server>` topic or carries the key `{"serverName": ...}`.
    -#}
    coalesce(
        {{ message }}.body.ts_ms is not null
        and {{ message }}.body.op is null
        and {{ message }}.body.source is null
        and {{ message }}.body.status is null
        and {{ message }}.body.tableChanges is null
        and (
            startswith({{ message }}._kafka_topic, '__debezium-heartbeat.')
            or get_json_object(
                case
                    when {{ message }}.key_envelope.schema is not null then {{ message }}.key_envelope.payload
                    else {{ message }}.message_key
                end,
                '$.serverName'
            ) is not null
        ),
        false
    )
{% endmacro %}
