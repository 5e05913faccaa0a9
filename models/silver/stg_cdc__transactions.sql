{{ config(materialized='cdc_view') }}

-- Transaction markers: Debezium transaction metadata (topic <server>.transaction), one row
-- per BEGIN or END event with the per-table event counts of END events; and the DataWorks
-- markers (TRANSACTION_BEGIN / TRANSACTION_END -> BEGIN / END, XACOMMIT -> COMMIT,
-- XAROLLBACK -> ROLLBACK, GTID), which carry no transaction id (only Oracle's scn).

with

control_messages as (

    select * from {{ ref('int_cdc__control_messages') }}
    where _cdc_message_kind = 'transaction'

),

parsed as (

    select
        _message_id,
        from_json(message_value, '{{ _cdc_transaction_schema() }}') as envelope,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from control_messages
    where _cdc_envelope like 'debezium%'

),

debezium as (

    select
        _message_id,
        'debezium_relational' as _cdc_envelope,
        coalesce(envelope.payload.id, envelope.id) as transaction_id,
        coalesce(envelope.payload.status, envelope.status) as transaction_status,
        try_cast(coalesce(envelope.payload.event_count, envelope.event_count) as bigint)
            as event_count,
        to_json(transform(
            coalesce(envelope.payload.data_collections, envelope.data_collections),
            collection -> named_struct(
                'data_collection', collection.data_collection,
                'event_count', try_cast(collection.event_count as bigint)
            )
        )) as data_collections,
        timestamp_millis(try_cast(coalesce(envelope.payload.ts_ms, envelope.ts_ms) as bigint))
            as _cdc_source_ts,
        cast(null as string) as _cdc_position,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from parsed

),

markers as (

    select
        _message_id,
        _cdc_envelope,
        _cdc_transaction_id as transaction_id,
        case _cdc_op
            when 'TRANSACTION_BEGIN' then 'BEGIN'
            when 'TRANSACTION_END' then 'END'
            when 'XACOMMIT' then 'COMMIT'
            when 'XAROLLBACK' then 'ROLLBACK'
            else _cdc_op
        end as transaction_status,
        cast(null as bigint) as event_count,
        cast(null as string) as data_collections,
        _cdc_source_ts,
        _cdc_position,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from control_messages
    where not _cdc_envelope like 'debezium%'

),

final as (

    select * from debezium
    union all
    select * from markers

)

select * from final
