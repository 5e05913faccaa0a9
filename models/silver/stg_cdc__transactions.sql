{{ config(materialized='view') }}

-- Debezium transaction metadata (topic <server>.transaction): one row per BEGIN or END
-- event, with the per-table event counts of END events.

with

control_messages as (

    select
        _message_id,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind = 'transaction'

),

bronze as (

    select
        _message_id,
        message_value
    from {{ ref('bronze_cdc_messages') }}

),

parsed as (

    select
        control_messages.*,
        from_json(
            bronze.message_value,
            '{{ _cdc_transaction_schema() }}'
        ) as envelope
    from control_messages
    inner join bronze
        on control_messages._message_id = bronze._message_id

),

final as (

    select
        _message_id,
        coalesce(envelope.payload.id, envelope.id) as transaction_id,
        coalesce(envelope.payload.status, envelope.status) as transaction_status,
        coalesce(envelope.payload.event_count, envelope.event_count) as event_count,
        to_json(coalesce(envelope.payload.data_collections, envelope.data_collections))
            as data_collections,
        timestamp_millis(coalesce(envelope.payload.ts_ms, envelope.ts_ms)) as _cdc_source_ts,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from parsed

)

select * from final
