{{
    config(
        materialized='incremental',
        incremental_strategy='append',
    )
}}

-- One row per bronze message: its envelope unpacked into the common change-log shape,
-- or the reason it cannot be read. Each message is parsed once (cdc_envelope_schema).

with

bronze as (

    select
        bronze_messages._message_id,
        bronze_messages.message_key,
        bronze_messages.message_value,
        bronze_messages._is_tombstone,
        bronze_messages._is_valid_utf8,
        bronze_messages._kafka_topic,
        bronze_messages._kafka_partition,
        bronze_messages._kafka_offset,
        bronze_messages._source_file,
        bronze_messages._source_line,
        bronze_messages._loaded_at,
        bronze_messages._load_id
    from {{ ref('bronze_cdc_messages') }} as bronze_messages
    {% if is_incremental() %}
        where bronze_messages._loaded_at > {{ cdc_loaded_watermark(this) }}
    {% endif %}

),

parsed as (

    select
        bronze.*,
        case
            when message_value is not null
                then from_json(
                        message_value,
                        '{{ cdc_envelope_schema() }}',
                        map('columnNameOfCorruptRecord', '_corrupt_record')
                    )
        end as envelope,
        case
            when message_key is not null
                then from_json(message_key, 'struct<schema: string, payload: string>')
        end as key_envelope
    from bronze

),

unwrapped as (

    select
        _message_id,
        message_value,
        _is_tombstone,
        _is_valid_utf8,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at,
        _load_id,
        envelope is null or envelope._corrupt_record is not null as is_malformed,
        coalesce(envelope.payload.op, envelope.op) as op,
        coalesce(envelope.payload.before, envelope.before) as before_json,
        coalesce(envelope.payload.after, envelope.after) as after_json,
        coalesce(envelope.payload.source, envelope.source) as source_block,
        coalesce(envelope.payload.ts_ms, envelope.ts_ms) as emitted_ts_ms,
        coalesce(envelope.payload.transaction, envelope.transaction) as transaction_block,
        coalesce(envelope.payload.status, envelope.status) as transaction_status,
        coalesce(envelope.payload.tablechanges, envelope.tablechanges) as table_changes,
        coalesce(envelope.payload.ddl, envelope.ddl) as ddl,
        try_element_at(
            filter(envelope.schema.fields, f -> f.field = 'after'), 1
        ).fields as after_schema_fields,
        envelope.schema.name as envelope_schema_name,
        {{ cdc_json_map(
            "case when key_envelope.schema is not null then key_envelope.payload"
            ~ " else message_key end"
        ) }} as key_map
    from parsed

),

classified as (

    select
        *,
        {{ debezium_connector('source_block', 'coalesce(_kafka_topic, _source_file)') }} as connector,
        {{ debezium_is_snapshot('source_block') }} as is_snapshot,
        {{ debezium_table_identity('source_block', 'envelope_schema_name', '_kafka_topic') }},
        -- row images are parsed here only to key a message without a Kafka key (the typed
        -- models parse them by their contract): one JSON parse fewer per image otherwise
        case
            when key_map is null and op in ('c', 'r', 'u') then {{ cdc_json_map('after_json') }}
        end as after_map,
        case when key_map is null and op = 'd' then {{ cdc_json_map('before_json') }} end as before_map
    from unwrapped

),

announced_keys as (

    -- the newest primary key the schema-change topic announced for each table
    select
        _cdc_source_id as announced_source_id,
        max_by(
            primary_key_columns,
            struct(
                _cdc_source_ts, _loaded_at, _kafka_partition, _kafka_offset, _source_file,
                _source_line
            )
        ) as announced_key
    from {{ ref('int_cdc__schema_change_keys') }}
    where change_type != 'DROP' and size(primary_key_columns) > 0
    group by _cdc_source_id

),

keyed as (

    select /*+ broadcast(announced_keys) */
        classified.*,
        {{ debezium_position('classified.connector', 'classified.source_block') }} as source_position,
        coalesce(
            {{ cdc_canonical_json_map('classified.key_map') }},
            case
                when classified.op = 'd' then {{ cdc_key_from_image(
                    'classified.source_table', 'classified.before_map', 'announced_keys.announced_key'
                ) }}
                when classified.op in ('c', 'r', 'u') then {{ cdc_key_from_image(
                    'classified.source_table', 'classified.after_map', 'announced_keys.announced_key'
                ) }}
            end
        ) as row_key
    from classified
    left join announced_keys
        on lower(concat_ws(
                '.', classified.source_block.db, classified.source_schema, classified.source_table
            )) = announced_keys.announced_source_id

),

checked as (

    select
        *,
        case
            when not _is_valid_utf8
                then 'invalid_utf8: the line is not valid UTF-8; its bytes are kept in '
                    || 'bronze_cdc_messages.raw_line_base64'
            when _is_tombstone then null
            when is_malformed and left(ltrim(message_value), 1) != '{'
                and try_parse_json(message_value) is not null
                then 'not_an_object: the message is JSON text but not an object (starts with '
                    || left(ltrim(message_value), 20) || ')'
            when is_malformed and left(ltrim(message_value), 1) = '{'
                and right(rtrim(message_value), 1) != '}'
                then 'truncated_json: the message ends before its JSON object closes ('
                    || length(message_value) || ' characters, ends with '
                    || right(rtrim(message_value), 20) || ')'
            when is_malformed
                then 'malformed_json: the message is not valid JSON'
            when op is null and transaction_status in ('BEGIN', 'END') then null
            when op is null and (table_changes is not null or ddl is not null) then null
            when op is null
                then 'unknown_envelope: no op field and not a transaction or schema-change '
                    || 'event of a known connector'
            when op not in ('c', 'u', 'd', 'r', 't')
                then 'unknown_op: op ''' || op || ''' is not one of c, u, d, r, t'
            when source_block is null
                then 'missing_source: the message has no source block'
            when connector is null
                then 'unknown_connector: the source block matches no known connector'
            when connector not in ('oracle', 'sqlserver', 'db2', 'postgresql', 'mysql')
                then 'unsupported_connector: ''' || connector || ''' is not a relational '
                    || 'Debezium connector this project reads'
            when source_table is null
                then 'missing_table: neither source.table, the schema name nor the topic '
                    || 'names the table'
            when source_position is null
                then 'bad_position: the ' || connector || ' source position is missing '
                    || 'or not a number'
            when op in ('c', 'r', 'u')
                and (after_json is null or not startswith(ltrim(after_json), '{'))
                then 'missing_after: op ' || op || ' without an after row image'
            when op = 'd' and row_key is null
                then 'delete_without_key: before is null and the message has no key'
        end as error_reason
    from keyed

),

final as (

    select
        _message_id,
        case
            when error_reason is not null then 'error'
            when _is_tombstone then 'tombstone'
            when op is null and transaction_status in ('BEGIN', 'END') then 'transaction'
            when op is null then 'schema_change'
            else 'change'
        end as _cdc_message_kind,
        error_reason as _cdc_error_reason,
        case
            when error_reason is null and not _is_tombstone then 'debezium_relational'
        end as _cdc_envelope,
        connector as _cdc_connector,
        op as _cdc_op,
        source_block.db as _cdc_source_db,
        source_schema as _cdc_source_schema,
        source_table as _cdc_source_table,
        lower(concat_ws('.', source_block.db, source_schema, source_table)) as _cdc_source_id,
        row_key as _cdc_key,
        before_json as _cdc_before,
        after_json as _cdc_after,
        map_from_entries(transform(
            after_schema_fields,
            f -> struct(
                lower(f.field) as field_name,
                named_struct(
                    'type', f.type,
                    'name', f.name,
                    'scale', f.parameters['scale'],
                    'precision', f.parameters['connect.decimal.precision']
                ) as field_type
            )
        )) as _cdc_column_types,
        source_position as _cdc_position,
        -- the parts are joined by a space, which sorts below every character of a position:
        -- a position that is a prefix of another (a Db2 snapshot read without change_lsn)
        -- sorts first in the sort key too, as it does on its own
        concat_ws(
            ' ',
            source_position,
            case when is_snapshot then '0' else '1' end,
            case
                when _kafka_offset is not null
                    then concat(
                            lpad(cast(coalesce(_kafka_partition, 0) as string), 6, '0'),
                            lpad(cast(_kafka_offset as string), 20, '0')
                        )
                else concat(
                        date_format(_loaded_at, 'yyyyMMddHHmmssSSSSSS'),
                        _source_file,
                        lpad(cast(_source_line as string), 12, '0')
                    )
            end
        ) as _cdc_sort_key,
        is_snapshot as _cdc_is_snapshot,
        source_block.snapshot as _cdc_snapshot,
        timestamp_millis(try_cast(source_block.ts_ms as bigint)) as _cdc_source_ts,
        timestamp_millis(try_cast(emitted_ts_ms as bigint)) as _cdc_emitted_ts,
        coalesce(transaction_block.id, source_block.txid) as _cdc_transaction_id,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at,
        _load_id
    from checked

)

select * from final
