{% macro debezium_mongodb__body_fields() %}
    {#- The body fields of Debezium MongoDB change events. -#}
    {{ return({
        'before': 'string', 'after': 'string', 'patch': 'string', 'filter': 'string',
        'updateDescription': 'struct<removedFields: array<string>, updatedFields: string, '
            ~ 'truncatedArrays: array<struct<field: string, size: string>>>',
        'op': 'string', 'ts_ms': 'string',
        'source': cdc_lakehouse._debezium_source_type(),
        'transaction': 'struct<id: string, total_order: string, data_collection_order: string>',
    }) }}
{% endmacro %}

{% macro debezium_mongodb__schema_fields() %}
    {#- The top-level Kafka Connect `schema` fields, as the relational family's. -#}
    {{ return(cdc_lakehouse._debezium_schema_fields()) }}
{% endmacro %}

{% macro debezium_mongodb__detect(message) %}
    {#- SQL boolean: `source.connector` is mongodb, or the source has a `collection`, no `table`. -#}
    (
        lower({{ message }}.body.source.connector) = 'mongodb'
        or {{ message }}.body.source.connector is null
            and {{ message }}.body.source.collection is not null
            and {{ message }}.body.source.table is null
    )
{% endmacro %}

{% macro debezium_mongodb__connector(message) %}
    {#- The constant `'mongodb'`. -#}
    'mongodb'
{% endmacro %}

{% macro debezium_mongodb__message_kind(message) %}
    {#- `change` when the body has an `op`, else null. -#}
    case when {{ message }}.body.op is not null then 'change' end
{% endmacro %}

{% macro debezium_mongodb__op(message) %}
    {#- The body's `op` as it arrived (c, u, d or r for a valid change). -#}
    {{ message }}.body.op
{% endmacro %}

{% macro debezium_mongodb__table_identity(message) %}
    {#- db and collection from the source block, else from the topic <server>.<db>.<collection>. -#}
    named_struct(
        'db', coalesce(
            {{ message }}.body.source.db,
            try_element_at(split({{ message }}._kafka_topic, '[.]'), -2)
        ),
        'schema', cast(null as string),
        'table', coalesce(
            {{ message }}.body.source.collection,
            case
                when size(split({{ message }}._kafka_topic, '[.]')) >= 3
                    then try_element_at(split({{ message }}._kafka_topic, '[.]'), -1)
            end
        )
    )
{% endmacro %}

{% macro debezium_mongodb__key(message, announced_key) %}
    {#- The document's key, `{"_id":<id>}`. -#}
    {{ cdc_lakehouse._cdc_let(cdc_lakehouse._debezium_mongodb_id(message), 'mongodb_id', cdc_lakehouse._debezium_mongodb_canonical_id('mongodb_id')) }}
{% endmacro %}

{% macro debezium_mongodb__position(message) %}
    {#- The position: cluster time, then the order in the transaction. -#}
    case
        when {{ message }}.body.source.ts_ms rlike '^[0-9]{1,20}$'
            and {{ message }}.body.source.ord rlike '^[0-9]{1,10}$'
            and coalesce({{ message }}.body.transaction.total_order, '0') rlike '^[0-9]{1,10}$'
            then concat(
                lpad({{ message }}.body.source.ts_ms, 20, '0'),
                '.',
                lpad({{ message }}.body.source.ord, 10, '0'),
                '.',
                lpad(coalesce({{ message }}.body.transaction.total_order, '0'), 10, '0')
            )
    end
{% endmacro %}

{% macro debezium_mongodb__is_snapshot(message) %}
    {#- `_debezium_is_snapshot` of the body's `source` block. -#}
    {{ cdc_lakehouse._debezium_is_snapshot(message ~ '.body.source') }}
{% endmacro %}

{% macro debezium_mongodb__snapshot(message) %}
    {#- The raw `source.snapshot` marker (null when absent). -#}
    {{ message }}.body.source.snapshot
{% endmacro %}

{% macro debezium_mongodb__source_ts(message) %}
    {#- `source.ts_ms` as a timestamp; null when it is not a number. -#}
    timestamp_millis(try_cast({{ message }}.body.source.ts_ms as bigint))
{% endmacro %}

{% macro debezium_mongodb__emitted_ts(message) %}
    {#- The body's `ts_ms` as a timestamp; null when it is not a number. -#}
    timestamp_millis(try_cast({{ message }}.body.ts_ms as bigint))
{% endmacro %}

{% macro debezium_mongodb__before(message) %}
    {#- The document before the change (`before`, pre-images only), extended JSON. -#}
    {{ message }}.body.before
{% endmacro %}

{% macro debezium_mongodb__after(message) %}
    {#- The whole document after the change, when the message carries it. -#}
    {{ message }}.body.after
{% endmacro %}

{% macro debezium_mongodb__patch(message) %}
    {#- The patch of an update without a full document. -#}
    case
        when {{ message }}.body.op = 'u' and {{ message }}.body.after is null
            and ({{ message }}.body.patch is not null or {{ message }}.body.updateDescription is not null)
            then to_json(named_struct(
                'patch', {{ message }}.body.patch,
                'update_description', {{ message }}.body.updateDescription,
                'id', to_json({{ cdc_lakehouse._debezium_mongodb_id(message) }})
            ))
    end
{% endmacro %}

{% macro debezium_mongodb__column_types(message) %}
    {#- Always null: document values carry their types as extended JSON. -#}
    cast(null as map<string, struct<type: string, name: string, scale: string, precision: string>>)
{% endmacro %}

{% macro debezium_mongodb__transaction_id(message) %}
    {#- `transaction.id`, else `<source.lsid>:<source.txnNumber>`, else null. -#}
    coalesce(
        {{ message }}.body.transaction.id,
        case
            when {{ message }}.body.source.lsid is not null
                then concat({{ message }}.body.source.lsid, ':', {{ message }}.body.source.txnNumber)
        end
    )
{% endmacro %}

{% macro debezium_mongodb__error_reason(message) %}
    {#- Why a MongoDB message cannot be applied, else null. -#}
    case
        when {{ message }}.kind is null
            then 'unknown_envelope: a MongoDB message without an op'
        when {{ message }}.op not in ('c', 'u', 'd', 'r')
            then 'unknown_op: op ''' || {{ message }}.op || ''' is not one of c, u, d, r (MongoDB)'
        when {{ message }}.source_table is null
            then 'missing_table: neither source.collection nor the topic names the collection'
        when {{ message }}.position is null
            then 'bad_position: the mongodb source position (ts_ms, ord) is missing or not a number'
        when {{ message }}.op in ('c', 'r')
            and ({{ message }}.after is null or try_parse_json({{ message }}.after) is null
                or not startswith(ltrim({{ message }}.after), '{'))
            then 'missing_after: op ' || {{ message }}.op || ' without a document (after) that is a JSON object'
        when {{ message }}.op = 'u' and {{ message }}.after is null and {{ message }}.patch is null
            then 'missing_patch: an update with neither a document (after), a patch nor an updateDescription'
        when {{ message }}.row_key is null
            then 'missing_document_id: no _id in the document, filter, before image or Kafka key'
    end
{% endmacro %}

{% macro _debezium_mongodb_id(message) %}
    {#- The document's `_id` as a VARIANT, from wherever the message carries it. -#}
    coalesce(
        variant_get(try_parse_json({{ message }}.body.after), '$._id'),
        variant_get(try_parse_json({{ message }}.body.filter), '$._id'),
        variant_get(try_parse_json({{ message }}.body.before), '$._id'),
        try_parse_json(get_json_object(
            case
                when {{ message }}.key_envelope.schema is not null
                    then {{ message }}.key_envelope.payload
                else {{ message }}.message_key
            end,
            '$.id'
        ))
    )
{% endmacro %}
