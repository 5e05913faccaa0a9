{% macro alibaba_dataworks__body_fields() %}
    {#- Returns the {name: Spark DDL type} of the message body fields this family reads. -#}
    {{ return({
        'before': 'string', 'after': 'string', 'op': 'string', 'sequenceId': 'string',
        'scn': 'string',
        'timestamp': 'struct<eventTime: string, systemTime: string, checkpointTime: string>',
        'ddl': 'string',
    }) }}
{% endmacro %}

{% macro alibaba_dataworks__schema_fields() %}
    {#- Returns the {name: Spark DDL type} of the top-level `schema` fields this family reads. -#}
    {{ return({
        'dataColumn': 'array<struct<name: string, type: string>>',
        'primaryKey': 'array<string>',
        'source': 'struct<dbType: string, dbVersion: string, dbName: string, '
            ~ 'schemaName: string, tableName: string>',
    }) }}
{% endmacro %}

{% macro alibaba_dataworks__detect(message) %}
    {#- SQL boolean: the message is DataWorks's. -#}
    (
        {{ message }}.envelope.payload.timestamp is not null
        or {{ message }}.envelope.payload.sequenceId is not null
        or {{ message }}.envelope.schema.dataColumn is not null
    )
{% endmacro %}

{% macro alibaba_dataworks__connector(message) %}
    {#- SQL expression: the connector name ('dataworks'). -#}
    'dataworks'
{% endmacro %}

{% macro _alibaba_dataworks_ops(kind) %}
    {#- The DataWorks ops of one message kind (`change`, `transaction`, `schema_change`, `heartbeat`). -#}
    {{ return({
        'change': ['INSERT', 'UPDATE_BEFOR', 'UPDATE_BEFORE', 'UPDATE_AFTER', 'DELETE', 'TRUNCATE'],
        'transaction': ['TRANSACTION_BEGIN', 'TRANSACTION_END', 'XACOMMIT', 'XAROLLBACK', 'GTID'],
        'schema_change': ['CREATE', 'ALTER', 'ERASE', 'RENAME', 'CINDEX', 'DINDEX', 'QUERY'],
        'heartbeat': ['MHEARTBEAT'],
    }[kind]) }}
{% endmacro %}

{% macro alibaba_dataworks__message_kind(message) %}
    {#- An unknown op is a change whose op is null: error_reason names it (unknown_op). -#}
    case
        when {{ cdc_lakehouse._cdc_in_list(message ~ '.body.op', cdc_lakehouse._alibaba_dataworks_ops('transaction')) }} then 'transaction'
        when {{ cdc_lakehouse._cdc_in_list(message ~ '.body.op', cdc_lakehouse._alibaba_dataworks_ops('schema_change')) }} then 'schema_change'
        when {{ cdc_lakehouse._cdc_in_list(message ~ '.body.op', cdc_lakehouse._alibaba_dataworks_ops('heartbeat')) }} then 'heartbeat'
        else 'change'
    end
{% endmacro %}

{% macro alibaba_dataworks__op(message) %}
    {#- c/r/u/d/t for a change (null for an unknown op); the DataWorks op of a control message. -#}
    case {{ message }}.body.op
        when 'INSERT' then case when {{ message }}.body.sequenceId = '-1' then 'r' else 'c' end
        when 'UPDATE_AFTER' then case when {{ message }}.row_image.after is null and {{ message }}.row_image.before is not null then 'd' else 'u' end
        when 'UPDATE_BEFOR' then 'd'
        when 'UPDATE_BEFORE' then 'd'
        when 'DELETE' then 'd'
        when 'TRUNCATE' then 't'
        else case
            when {{ cdc_lakehouse.alibaba_dataworks__message_kind(message) }} != 'change' then {{ message }}.body.op
        end
    end
{% endmacro %}

{% macro alibaba_dataworks__table_identity(message) %}
    {#- SQL named_struct(db, schema, table) of the changed table. -#}
    named_struct(
        'db', {{ message }}.envelope.schema.source.dbName,
        'schema', {{ message }}.envelope.schema.source.schemaName,
        'table', {{ message }}.envelope.schema.source.tableName
    )
{% endmacro %}

{% macro _alibaba_dataworks_key_columns(message) %}
    {#- The key columns of a DataWorks table, lower case. -#}
    case
        when size({{ message }}.envelope.schema.primaryKey) > 0
            then transform({{ message }}.envelope.schema.primaryKey, key_column -> lower(key_column))
        when lower({{ message }}.envelope.schema.source.dbType) = 'oracle' then array('rowid')
        else array('#alibaba_rds_row_id#')
    end
{% endmacro %}

{% macro _alibaba_dataworks_image(json) %}
    {#- The `dataColumn` object of a DataWorks row image (`{"dataColumn": {...}}`), as JSON text. -#}
    from_json({{ json }}, 'struct<dataColumn: string>').dataColumn
{% endmacro %}

{% macro alibaba_dataworks__row_images(message) %}
    {#- A key-changing update as a delete and an update, else null. -#}
    {%- set keys = cdc_lakehouse._alibaba_dataworks_key_columns(message) -%}
    {%- set before = cdc_lakehouse._alibaba_dataworks_image(message ~ '.body.before') -%}
    {%- set after = cdc_lakehouse._alibaba_dataworks_image(message ~ '.body.after') -%}
    case
        when {{ message }}.body.op = 'UPDATE_AFTER' and {{ before }} is not null and {{ after }} is not null
            and not ({{ cdc_lakehouse.cdc_key_from_image(message ~ '.declared_key', cdc_lakehouse._cdc_json_map(before), keys) }}
                <=> {{ cdc_lakehouse.cdc_key_from_image(message ~ '.declared_key', cdc_lakehouse._cdc_json_map(after), keys) }})
            then array(
                named_struct('before', {{ before }}, 'after', cast(null as string)),
                named_struct('before', {{ before }}, 'after', {{ after }})
            )
    end
{% endmacro %}

{% macro alibaba_dataworks__key(message, announced_key) %}
    {#- The key columns (see _alibaba_dataworks_key_columns) read off the image (`before` for d). -#}
    case
        when {{ message }}.op = 'd' then {{ cdc_lakehouse.cdc_key_from_image(
            message ~ '.declared_key',
            cdc_lakehouse._cdc_json_map(cdc_lakehouse.alibaba_dataworks__before(message)),
            cdc_lakehouse._alibaba_dataworks_key_columns(message)
        ) }}
        when {{ message }}.op in ('c', 'r', 'u') then {{ cdc_lakehouse.cdc_key_from_image(
            message ~ '.declared_key',
            cdc_lakehouse._cdc_json_map(cdc_lakehouse.alibaba_dataworks__after(message)),
            cdc_lakehouse._alibaba_dataworks_key_columns(message)
        ) }}
    end
{% endmacro %}

{% macro alibaba_dataworks__position(message) %}
    {#- The position: `sequenceId`, then the half of an update. -#}
    case
        when {{ message }}.body.sequenceId = '-1' or {{ message }}.body.sequenceId rlike '^[0-9]{1,20}$'
            then concat(
                case
                    when {{ message }}.body.sequenceId = '-1' then repeat('0', 20)
                    else lpad({{ message }}.body.sequenceId, 20, '0')
                end,
                '.',
                case
                    when {{ message }}.body.op in ('UPDATE_BEFOR', 'UPDATE_BEFORE') then '0'
                    when {{ message }}.row_image is not null and {{ message }}.row_image.after is null then '0'
                    else '1'
                end
            )
    end
{% endmacro %}

{% macro alibaba_dataworks__is_snapshot(message) %}
    {#- SQL boolean: a snapshot / full-load read. -#}
    coalesce({{ message }}.body.sequenceId = '-1', false)
{% endmacro %}

{% macro alibaba_dataworks__snapshot(message) %}
    {#- SQL expression: the raw snapshot marker, else null. -#}
    case when {{ message }}.body.sequenceId = '-1' then 'true' end
{% endmacro %}

{% macro _alibaba_dataworks_ms(field) %}
    {#- A DataWorks 13-digit epoch-ms time as a timestamp; null when missing or negative (full-load -1). -#}
    case
        when try_cast({{ field }} as bigint) >= 0 then timestamp_millis(try_cast({{ field }} as bigint))
    end
{% endmacro %}

{% macro alibaba_dataworks__source_ts(message) %}
    {#- SQL timestamp of the change at the source. -#}
    {{ cdc_lakehouse._alibaba_dataworks_ms(message ~ '.body.timestamp.eventTime') }}
{% endmacro %}

{% macro alibaba_dataworks__emitted_ts(message) %}
    {#- SQL timestamp the connector processed it, else null. -#}
    {{ cdc_lakehouse._alibaba_dataworks_ms(message ~ '.body.timestamp.systemTime') }}
{% endmacro %}

{% macro alibaba_dataworks__checkpoint_ts(message) %}
    {#- SQL timestamp of DataWorks `checkpointTime` (null when missing or negative). -#}
    {{ cdc_lakehouse._alibaba_dataworks_ms(message ~ '.body.timestamp.checkpointTime') }}
{% endmacro %}

{% macro alibaba_dataworks__before(message) %}
    {#- SQL expression: the row image before the change (JSON text as carried). -#}
    coalesce({{ message }}.row_image.before, {{ cdc_lakehouse._alibaba_dataworks_image(message ~ '.body.before') }})
{% endmacro %}

{% macro alibaba_dataworks__after(message) %}
    {#- SQL expression: the row image after the change (JSON text as carried). -#}
    case
        when {{ message }}.row_image is not null then {{ message }}.row_image.after
        else {{ cdc_lakehouse._alibaba_dataworks_image(message ~ '.body.after') }}
    end
{% endmacro %}

{% macro alibaba_dataworks__patch(message) %}
    {#- SQL null: this format has no partial updates. -#}
    cast(null as string)
{% endmacro %}

{% macro alibaba_dataworks__column_types(message) %}
    {#- The column types of `schema.dataColumn` as Kafka Connect types. -#}
    map_from_entries(transform(
        {{ message }}.envelope.schema.dataColumn,
        data_column -> struct(
            lower(data_column.name) as field_name,
            named_struct(
                'type', case upper(data_column.type)
                    when 'LONG' then 'int64'
                    when 'DOUBLE' then 'float64'
                    when 'BOOLEAN' then 'boolean'
                    when 'STRING' then 'string'
                    when 'BYTES' then 'bytes'
                    when 'DATE' then 'int64'
                    else lower(data_column.type)
                end,
                'name', case when upper(data_column.type) = 'DATE' then 'io.debezium.time.Timestamp' end,
                'scale', cast(null as string),
                'precision', cast(null as string)
            ) as field_type
        )
    ))
{% endmacro %}

{% macro alibaba_dataworks__transaction_id(message) %}
    {#- DataWorks carries no transaction id: the Oracle `scn` when present, else null. -#}
    {{ message }}.body.scn
{% endmacro %}

{% macro alibaba_dataworks__error_reason(message) %}
    {#- SQL expression: why the message cannot be read (reason code first), else null. -#}
    case
        when {{ message }}.kind != 'change' then null
        when {{ message }}.op is null
            then 'unknown_op: DataWorks op ''' || coalesce({{ message }}.body.op, '(none)')
                || ''' is not a change (INSERT, UPDATE_BEFOR, UPDATE_AFTER, DELETE, TRUNCATE), '
                || 'transaction, DDL or heartbeat op'
        when {{ message }}.source_table is null
            then 'missing_table: schema.source.tableName is absent'
        when {{ message }}.position is null
            then 'bad_position: the DataWorks sequenceId ''' || coalesce({{ message }}.body.sequenceId, '(none)')
                || ''' is missing or not a number'
        when {{ message }}.op in ('c', 'r', 'u')
            and ({{ message }}.after is null or not startswith(ltrim({{ message }}.after), '{'))
            then 'missing_after: op ' || {{ message }}.body.op || ' without an after row image (payload.after.dataColumn)'
        when {{ message }}.op = 'd' and {{ message }}.row_key is null
            then 'delete_without_key: ' || {{ message }}.body.op || ' without a before row image holding the key columns'
        when {{ message }}.op != 't' and {{ message }}.row_key is null
            then 'missing_row_key: the row image lacks a key column (schema.primaryKey or the row id)'
    end
{% endmacro %}
