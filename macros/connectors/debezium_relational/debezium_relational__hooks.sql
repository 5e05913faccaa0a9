{#-
    The Debezium relational family (Oracle, SQL Server, Db2, PostgreSQL, MySQL, and any
    writer of the debezium-json format without source positions: connector `debezium`):
    the interface of cdc_family_hook. Change events, transaction metadata (`<server>.transaction`)
    and schema-change events (`<server>` topic).
-#}

{% macro debezium_relational__body_fields() %}
    {#-
        The body fields of Debezium relational messages.
        Returns the body fields of Debezium relational messages as a `{name: Spark DDL type}`
        map: change events (`before`, `after` as JSON text, `op`, `ts_ms`, `source` typed by
        `_debezium_source_type`, `transaction`), transaction metadata (`status`, `id`,
        `event_count`) and schema-change events (`databaseName`, `schemaName`, `ddl`,
        `tableChanges` as JSON text).
    -#}
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
    {#-
        SQL boolean: the message is a Debezium relational one.
        SQL boolean expression, true when the body has an `op`, a `source` block, a transaction
        `status` of BEGIN or END, `tableChanges` or `ddl`. Tried after the families listed
        before it in `_cdc_connector_families`.
    -#}
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
    {#-
        The key: the Kafka key, else the declared, announced or whole-row key.
        The Kafka message key when the record carries one; else the declared, announced or
        whole-row key read off the row image (`before` for deletes).
    -#}
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
    {#-
        The Kafka Connect schema of the `after` field, by column name.
        The Kafka Connect schema of the `after` field, when the message is wrapped
        (_debezium_column_types).
    -#}
    {{ cdc_lakehouse._debezium_column_types(
        'try_element_at(filter(' ~ message ~ ".envelope.schema.fields, f -> f.field = 'after'), 1).fields"
    ) }}
{% endmacro %}

{% macro debezium_relational__transaction_id(message) %}
    {#- The source transaction id: `transaction.id`, else `source.txId`. -#}
    coalesce({{ message }}.body.transaction.id, {{ message }}.body.source.txid)
{% endmacro %}

{% macro debezium_relational__error_reason(message) %}
    {#-
        Why a relational message cannot be applied, else null.
        SQL `case` giving why a relational message cannot be applied, as `<code>: <detail>`,
        else null: unknown_envelope (no kind), then for changes only unknown_op,
        unknown_connector, unsupported_connector (not oracle, sqlserver, db2, postgresql, mysql,
        ticdc or debezium), missing_table, bad_position (a position field that does not read; a
        change with none is ordered by arrival), missing_after (c, r or u without an `after`
        object) and delete_without_key. Transaction and schema-change events give null. Uses the
        common columns computed before it.
    -#}
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
