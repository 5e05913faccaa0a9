{{ config(materialized='cdc_view') }}

{%- set transactions = _cdc_transaction_settings() -%}
{%- set tolerant_topics = cdc_lakehouse.cdc_var('cdc_gap_tolerant_topics') -%}
{%- set tolerant_topics = [tolerant_topics] if tolerant_topics is string else (tolerant_topics or []) -%}

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

loaded_offsets as (

    -- each offset once, with its first load (a redelivered copy reveals nothing new)
    select
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        min(_loaded_at) as first_loaded_at,
        min_by(_source_file, _loaded_at) as source_file,
        max(_record_format = 'kafka') as is_kafka_read
    from {{ ref('bronze_cdc_messages') }}
    where _kafka_offset is not null
        and _kafka_topic is not null
        and _kafka_partition is not null
    group by _kafka_topic, _kafka_partition, _kafka_offset

),

neighbours as (

    select
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        first_loaded_at,
        source_file,
        -- the lowest offset read from the broker follows offset -1: the log's start
        coalesce(
            lag(_kafka_offset) over partition_offsets,
            case when is_kafka_read then -1 end
        ) as previous_offset,
        lag(first_loaded_at) over partition_offsets as previous_loaded_at,
        lag(source_file) over partition_offsets as previous_source_file
    from loaded_offsets
    window partition_offsets as (partition by _kafka_topic, _kafka_partition order by _kafka_offset)

),

offset_gaps as (

    select
        'kafka_offsets' as gap_kind,
        _kafka_topic,
        _kafka_partition,
        previous_offset + 1 as first_missing_offset,
        _kafka_offset - 1 as last_missing_offset,
        _kafka_offset - previous_offset - 1 as missing_count,
        previous_loaded_at as loaded_before_at,
        first_loaded_at as loaded_after_at,
        previous_source_file as source_file_before,
        source_file as source_file_after,
        cast(null as string) as transaction_id,
        cast(null as string) as source_db,
        cast(null as string) as transaction_state,
        cast(null as bigint) as events_expected,
        cast(null as bigint) as events_seen,
        cast(null as string) as data_collections,
        {{ cdc_source_matches({'database': tolerant_topics}, '_kafka_topic', "''", "''")
            if tolerant_topics else 'false' }} as is_tolerated,
        greatest(previous_loaded_at, first_loaded_at) as _loaded_at
    from neighbours
    where _kafka_offset > previous_offset + 1

),

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
