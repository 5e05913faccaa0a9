{% macro debezium_relational__body_fields() %}
    {#- The body fields of Debezium relational messages. -#}
    {{ return({
        'before': 'string', 'after': 'string', 'op': 'string', 'ts_ms': 'string',
        'source': cdc_lakehouse._debezium_source_type(),
        'transaction': 'struct<id: string, total_order: string, data_collection_order: string>',
        'status': 'string', 'id': 'string', 'event_count': 'string',
        'databaseName': 'string', 'schemaName': 'string', 'ddl': 'string',
        'tableChanges': 'string',
    }) }}
{% endmacro %}

{% macro debezium_relational__schema_fields() %}
    {#- The top-level Kafka Connect `schema` fields (_debezium_schema_fields). -#}
    {{ return(cdc_lakehouse._debezium_schema_fields()) }}
{% endmacro %}

{% macro debezium_relational__detect(message) %}
    {#- SQL boolean: the message is a Debezium relational one. -#}
    (
        {{ message }}.body.op is not null
        or {{ cdc_lakehouse._debezium_is_heartbeat(message) }}
        or {{ message }}.body.source is not null
        or {{ message }}.body.status in ('BEGIN', 'END')
        or {{ message }}.body.tableChanges is not null
        or {{ message }}.body.ddl is not null
    )
{% endmacro %}

{% macro debezium_relational__connector(message) %}
    {#- _debezium_connector of the `source` block, the topic as the locator. -#}
    {{ cdc_lakehouse._debezium_connector(message ~ '.body.source', 'coalesce(' ~ message ~ '._kafka_topic, ' ~ message ~ '._source_file)') }}
{% endmacro %}

{% macro debezium_relational__message_kind(message) %}
    {#- change (an `op`), transaction (BEGIN/END) or schema_change, else null. -#}
    case
        when {{ message }}.body.op is not null then 'change'
        when {{ message }}.body.status in ('BEGIN', 'END') then 'transaction'
        when {{ message }}.body.tableChanges is not null or {{ message }}.body.ddl is not null
            then 'schema_change'
        when {{ cdc_lakehouse._debezium_is_heartbeat(message) }} then 'heartbeat'
    end
{% endmacro %}

{% macro debezium_relational__op(message) %}
    {#- The body's `op` as it arrived (c, u, d, r or t for a valid change). -#}
    {{ message }}.body.op
{% endmacro %}

{% macro debezium_relational__table_identity(message) %}
    {#- _debezium_table_identity of the source block, schema name and topic. -#}
    {{ cdc_lakehouse._debezium_table_identity(
        message ~ '.body.source', message ~ '.envelope.schema.name', message ~ '._kafka_topic',
        message ~ '.body.op is not null'
    ) }}
{% endmacro %}

{% macro debezium_relational__key(message, announced_key) %}
    {#- The key: the Kafka key, else the declared, announced or whole-row key. -#}
    coalesce(
        {{ cdc_lakehouse._debezium_kafka_key(message) }},
        case
            when {{ message }}.op = 'd' then {{ cdc_lakehouse.cdc_key_from_image(
                message ~ '.declared_key', cdc_lakehouse._cdc_json_map(message ~ '.body.before'), announced_key
            ) }}
            when {{ message }}.op in ('c', 'r', 'u') then {{ cdc_lakehouse.cdc_key_from_image(
                message ~ '.declared_key', cdc_lakehouse._cdc_json_map(message ~ '.body.after'), announced_key
            ) }}
        end
    )
{% endmacro %}

{% macro debezium_relational__position(message) %}
    {#- _debezium_position of the message's connector and `source` block. -#}
    {{ cdc_lakehouse._debezium_position(message ~ '.connector', message ~ '.body.source') }}
{% endmacro %}

{% macro debezium_relational__has_position(message) %}
    {#- SQL boolean: the source block carries a position field. -#}
    {{ cdc_lakehouse._debezium_has_position(message ~ '.body.source') }}
{% endmacro %}

{% macro debezium_relational__is_snapshot(message) %}
    {#- `_debezium_is_snapshot` of the body's `source` block. -#}
    {{ cdc_lakehouse._debezium_is_snapshot(message ~ '.body.source') }}
{% endmacro %}

{% macro debezium_relational__snapshot(message) %}
    {#- The raw `source.snapshot` marker (`true`, `last`, `incremental`, ..., null when absent). -#}
    {{ message }}.body.source.snapshot
{% endmacro %}

{% macro debezium_relational__source_ts(message) %}
    {#- `source.ts_ms` as a timestamp; a heartbeat vouches for its own ts_ms. -#}
    timestamp_millis(try_cast(coalesce(
        {{ message }}.body.source.ts_ms,
        case when {{ cdc_lakehouse._debezium_is_heartbeat(message) }} then {{ message }}.body.ts_ms end
    ) as bigint))
{% endmacro %}

{% macro debezium_relational__emitted_ts(message) %}
    {#- The body's `ts_ms` as a timestamp; null when it is not a number. -#}
    timestamp_millis(try_cast({{ message }}.body.ts_ms as bigint))
{% endmacro %}

{% macro debezium_relational__before(message) %}
    {#- The row image before the change (`before`) as JSON text. -#}
    {{ message }}.body.before
{% endmacro %}

{% macro debezium_relational__after(message) %}
    {#- The row image after the change (`after`) as JSON text. -#}
    {{ message }}.body.after
{% endmacro %}

{% macro debezium_relational__patch(message) %}
    {#- Always a null string (row images are never partial). -#}
    cast(null as string)
{% endmacro %}

{% macro debezium_relational__column_types(message) %}
    {#- The Kafka Connect schema of the `after` field, by column name. -#}
    {{ cdc_lakehouse._debezium_column_types(
        'try_element_at(filter(' ~ message ~ ".envelope.schema.fields, f -> f.field = 'after'), 1).fields"
    ) }}
{% endmacro %}

{% macro debezium_relational__transaction_id(message) %}
    {#- The source transaction id: `transaction.id`, else `source.txId`. -#}
    coalesce({{ message }}.body.transaction.id, {{ message }}.body.source.txid)
{% endmacro %}

{% macro debezium_relational__error_reason(message) %}
    {#- Why a relational message cannot be applied, else null. -#}
    case
        when {{ message }}.kind is null
            then 'unknown_envelope: no op field and not a transaction or schema-change '
                || 'event of a known connector'
        when {{ message }}.kind != 'change' then null
        when {{ message }}.op not in ('c', 'u', 'd', 'r', 't')
            then 'unknown_op: op ''' || {{ message }}.op || ''' is not one of c, u, d, r, t'
        when {{ message }}.connector is null
            then 'unknown_connector: the source block matches no known connector'
        when {{ message }}.connector not in ('oracle', 'sqlserver', 'db2', 'postgresql', 'mysql', 'ticdc', 'debezium')
            then 'unsupported_connector: ''' || {{ message }}.connector || ''' is not a '
                || 'connector of a registered family (' || '{{ cdc_lakehouse._cdc_connector_families() | join(", ") }}' || ')'
        when {{ message }}.source_table is null
            then 'missing_table: neither source.table, the schema name nor the topic '
                || 'names the table'
        when {{ message }}.position is null
            then 'bad_position: the ' || {{ message }}.connector || ' source position is '
                || 'incomplete or not a number'
        when {{ message }}.op in ('c', 'r', 'u')
            and ({{ message }}.after is null or not startswith(ltrim({{ message }}.after), '{'))
            then 'missing_after: op ' || {{ message }}.op || ' without an after row image'
        when {{ message }}.op = 'd' and {{ message }}.row_key is null
            then 'delete_without_key: before is null and the message has no key'
    end
{% endmacro %}

{% macro _debezium_is_heartbeat(message) %}
    {#- SQL boolean: the message is a Debezium heartbeat. -#}
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
