{{ config(materialized='cdc_view') }}

{%- set transactions = _cdc_transaction_settings() -%}

-- What did not arrive. Kafka offsets: per topic and partition, every range of offsets
-- missing between the lowest and the highest offset bronze holds (a window over its
-- distinct offsets, no message is parsed again); for a partition bronze read from the broker
-- itself, also those before its lowest offset (a partition's log starts at offset 0: the
-- first ones were gone, retention or compaction, before bronze's first read of it).
-- Debezium transactions: per transaction of a transaction-consistent source
-- (int_cdc__pending_transactions counts them), an END that announced more events than were
-- loaded. `_loaded_at` is when the gap became visible: the
-- newest load of what borders it, so a build's data test sees the gaps its loads revealed.

with

{{ _cdc_kafka_offset_gaps(ref('bronze_cdc_messages')) }},

{%- if transactions.sources %}

transaction_gaps as (

    -- an END loaded that counts more events than arrived (waiting, or released without them)
    select
        'transaction_events' as gap_kind,
        cast(null as string) as _kafka_topic,
        cast(null as int) as _kafka_partition,
        cast(null as bigint) as first_missing_offset,
        cast(null as bigint) as last_missing_offset,
        events_expected - events_seen as missing_count,
        first_loaded_at as loaded_before_at,
        last_loaded_at as loaded_after_at,
        cast(null as string) as source_file_before,
        cast(null as string) as source_file_after,
        transaction_id,
        source_db,
        transaction_state,
        events_expected,
        events_seen,
        data_collections,
        false as is_tolerated,
        last_loaded_at as _loaded_at
    from {{ ref('int_cdc__pending_transactions') }}
    where end_seen and events_seen < events_expected

),
{%- endif %}

final as (

    select * from offset_gaps
    {%- if transactions.sources %}
    union all
    select * from transaction_gaps
    {%- endif %}

)

select * from final
