{{ config(materialized='cdc_view') }}

-- How far each sync source has got: one row per source (the Kafka topic, else the landing
-- folder) and envelope, with the latest times its heartbeats (DataWorks MHEARTBEAT) and
-- its data changes vouch for. A heartbeat says the sync has read every source change up
-- to its eventTime, so a quiet table is not a stalled sync.

with

messages as (

    select
        coalesce(_kafka_topic, regexp_extract(_source_file, '^(.*)/[^/]*$', 1)) as sync_source,
        _cdc_envelope,
        _cdc_message_kind,
        _cdc_source_ts,
        _cdc_emitted_ts,
        _cdc_checkpoint_ts,
        _loaded_at
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind in ('change', 'heartbeat', 'transaction', 'schema_change')
        and _cdc_row_index = 0

),

final as (

    select
        sync_source,
        _cdc_envelope,
        max(case when _cdc_message_kind = 'heartbeat' then _cdc_source_ts end)
            as last_heartbeat_event_ts,
        max(case when _cdc_message_kind = 'heartbeat' then _cdc_emitted_ts end)
            as last_heartbeat_system_ts,
        max(case when _cdc_message_kind = 'heartbeat' then _cdc_checkpoint_ts end)
            as last_heartbeat_checkpoint_ts,
        max(case when _cdc_message_kind != 'heartbeat' then _cdc_source_ts end)
            as last_change_event_ts,
        max(case when _cdc_message_kind != 'heartbeat' then _cdc_emitted_ts end)
            as last_change_system_ts,
        max(_cdc_source_ts) as last_event_ts,
        max(_cdc_emitted_ts) as last_system_ts,
        max(_cdc_checkpoint_ts) as last_checkpoint_ts,
        max(_loaded_at) as last_loaded_at,
        count_if(_cdc_message_kind = 'heartbeat') as heartbeats,
        count_if(_cdc_message_kind != 'heartbeat') as messages
    from messages
    group by sync_source, _cdc_envelope

)

select * from final
