{% macro _cdc_kafka_offset_gaps(bronze, since=none) %}
    {#- CTEs ending in `offset_gaps`: the ranges of Kafka offsets missing between offsets `bronze` holds. -#}
    {%- set tolerant_topics = cdc_lakehouse.cdc_var('cdc_gap_tolerant_topics') -%}
    {%- set tolerant_topics = [tolerant_topics] if tolerant_topics is string else (tolerant_topics or []) -%}
    {%- set tolerated = cdc_lakehouse.cdc_source_matches({'database': tolerant_topics}, '_kafka_topic', "''", "''")
          if tolerant_topics else 'false' -%}
    {%- set coordinates = '_kafka_offset is not null and _kafka_topic is not null and _kafka_partition is not null' -%}
{%- if since is not none %}
batch_partitions as (

    -- the partitions the rows loaded after `since` touch, from their lowest offset
    select
        _kafka_topic,
        _kafka_partition,
        min(_kafka_offset) as batch_first_offset
    from {{ bronze }}
    where {{ coordinates }} and _loaded_at > {{ since }}
    group by _kafka_topic, _kafka_partition

),

offsets_below as (

    select /*+ broadcast(batch_partitions) */
        loaded._kafka_topic,
        loaded._kafka_partition,
        max(loaded._kafka_offset) as below_offset
    from {{ bronze }} as loaded
    inner join batch_partitions
        on
            loaded._kafka_topic = batch_partitions._kafka_topic
            and loaded._kafka_partition = batch_partitions._kafka_partition
            and loaded._kafka_offset < batch_partitions.batch_first_offset
    group by loaded._kafka_topic, loaded._kafka_partition

),

window_starts as (

    -- a gap these rows reveal borders one of them: the window starts at the offset before
    select
        batch_partitions._kafka_topic,
        batch_partitions._kafka_partition,
        coalesce(offsets_below.below_offset, batch_partitions.batch_first_offset) as first_offset
    from batch_partitions
    left outer join offsets_below
        on
            batch_partitions._kafka_topic = offsets_below._kafka_topic
            and batch_partitions._kafka_partition = offsets_below._kafka_partition

),
{%- endif %}

loaded_offsets as (

    -- each offset once, with its first load (a redelivered copy reveals nothing new)
    select {% if since is not none %}/*+ broadcast(window_starts) */{% endif %}
        loaded._kafka_topic,
        loaded._kafka_partition,
        loaded._kafka_offset,
        min(loaded._loaded_at) as first_loaded_at,
        min_by(loaded._source_file, loaded._loaded_at) as source_file,
        max(loaded._record_format = 'kafka') as is_kafka_read
    from {{ bronze }} as loaded
    {%- if since is not none %}
    inner join window_starts
        on
            loaded._kafka_topic = window_starts._kafka_topic
            and loaded._kafka_partition = window_starts._kafka_partition
            and loaded._kafka_offset >= window_starts.first_offset
    {%- endif %}
    where {{ coordinates | replace('_kafka_', 'loaded._kafka_') }}
    group by loaded._kafka_topic, loaded._kafka_partition, loaded._kafka_offset

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
        {{ tolerated }} as is_tolerated,
        greatest(previous_loaded_at, first_loaded_at) as _loaded_at
    from neighbours
    where _kafka_offset > previous_offset + 1
    {%- if since is not none %}
        and greatest(previous_loaded_at, first_loaded_at) > {{ since }}
    {%- endif %}

)
{%- endmacro %}
