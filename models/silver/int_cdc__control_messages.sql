{{ config(materialized='view') }}

-- Transaction-metadata and schema-change messages with their raw value: the input of
-- stg_cdc__transactions and stg_cdc__schema_changes (rare messages, parsed on read).

with

control_messages as (

    select
        _message_id,
        _cdc_message_kind,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind in ('transaction', 'schema_change')

),

bronze as (

    select
        _message_id,
        message_value
    from {{ ref('bronze_cdc_messages') }}

),

final as (

    select
        control_messages._message_id,
        control_messages._cdc_message_kind,
        bronze.message_value,
        control_messages._kafka_topic,
        control_messages._kafka_partition,
        control_messages._kafka_offset,
        control_messages._source_file,
        control_messages._source_line,
        control_messages._loaded_at
    from control_messages
    inner join bronze
        on control_messages._message_id = bronze._message_id

)

select * from final
