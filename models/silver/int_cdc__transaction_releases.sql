{%- set settings = _cdc_transaction_settings() -%}

{{ config(
    materialized='cdc_incremental',
    incremental_strategy='insert_overwrite',
    enabled=settings.sources | length > 0,
    cdc_transaction_settings=settings,
) }}

{%- set gated = cdc_source_matches(
        {'database': settings.sources}, '_cdc_source_db', "''", "''") if settings.sources else 'false' -%}

-- Transactions of the transaction-consistent sources (var
-- cdc_transaction_consistent_sources), one row each: the events its END announced per data
-- collection against those loaded, and when its changes are released to the change log:
-- complete (END loaded and every announced event present) at the load that completed it;
-- timed out (var cdc_transaction_wait_max_hours) at the first load that many hours after
-- its first; released by hand (var cdc_transaction_release) at its newest load. Release
-- times are load times, so that models downstream read them by their `_loaded_at` watermark.
-- A table overwritten by each run that loads messages (cdc_incremental, insert_overwrite; the
-- settings in its config make a changed var count as a changed model): int_cdc__change_log
-- joins it on every read, and as a view its plan (three reads of the transaction metadata,
-- two of the events) made each read of the change log cost seconds.

with

events as (

    -- each change event once: a redelivered copy has the same Kafka coordinates (or,
    -- without them, the same position, op and key); quarantined events count as present
    select
        _cdc_transaction_id as transaction_id,
        lower(_cdc_source_db) as source_db,
        lower(concat_ws('.', _cdc_source_db, _cdc_source_schema, _cdc_source_table))
            as data_collection,
        coalesce(
            case
                when _kafka_offset is not null
                    then concat_ws(
                        '/', _kafka_topic, cast(_kafka_partition as string), cast(_kafka_offset as string)
                    )
            end,
            concat_ws('/', _cdc_source_id, _cdc_position, _cdc_op, _cdc_key)
        ) as event_id,
        _loaded_at
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind in ('change', 'error')
        and _cdc_transaction_id is not null
        and {{ gated }}

),

seen as (

    select
        transaction_id,
        source_db,
        data_collection,
        count(distinct event_id) as events_seen,
        min(_loaded_at) as first_loaded_at,
        max(_loaded_at) as last_loaded_at
    from events
    group by transaction_id, source_db, data_collection

),

end_collections as (

    -- each END event with its announced count per data collection
    select
        transaction_id,
        _message_id as end_id,
        event_count as events_expected_total,
        _loaded_at as end_loaded_at,
        lower(collection.data_collection) as data_collection,
        collection.event_count as events_expected
    from {{ ref('stg_cdc__transactions') }}
    lateral view explode(
        from_json(data_collections, 'array<struct<data_collection: string, event_count: bigint>>')
    ) exploded as collection
    where transaction_status = 'END'
        and _cdc_envelope like 'debezium%'
        and transaction_id in (select transaction_id from seen)

),

matched_ends as (

    -- an END belongs to the source whose events it names (_cdc_data_collection_matches)
    select distinct
        end_collections.transaction_id,
        end_collections.end_id,
        seen.source_db
    from end_collections
    inner join seen
        on end_collections.transaction_id = seen.transaction_id
        and {{ _cdc_data_collection_matches('seen.data_collection', 'end_collections.data_collection') }}

),

ends as (

    -- a redelivered END once
    select
        matched_ends.transaction_id,
        matched_ends.source_db,
        max(end_collections.events_expected_total) as events_expected_total,
        min(end_collections.end_loaded_at) as end_loaded_at
    from matched_ends
    inner join end_collections on matched_ends.end_id = end_collections.end_id
    group by matched_ends.transaction_id, matched_ends.source_db

),

expected as (

    select distinct
        matched_ends.transaction_id,
        matched_ends.source_db,
        end_collections.data_collection,
        end_collections.events_expected
    from matched_ends
    inner join end_collections on matched_ends.end_id = end_collections.end_id

),

collections as (

    select
        coalesce(seen.transaction_id, expected.transaction_id) as transaction_id,
        coalesce(seen.source_db, expected.source_db) as source_db,
        coalesce(expected.data_collection, seen.data_collection) as data_collection,
        expected.events_expected,
        coalesce(seen.events_seen, 0) as events_seen,
        seen.first_loaded_at,
        seen.last_loaded_at
    from seen
    full outer join expected
        on seen.transaction_id = expected.transaction_id
        and seen.source_db = expected.source_db
        and {{ _cdc_data_collection_matches('seen.data_collection', 'expected.data_collection') }}

),

transactions as (

    select
        collections.transaction_id,
        collections.source_db,
        max(ends.transaction_id is not null) as end_seen,
        max(ends.events_expected_total) as events_expected,
        sum(collections.events_seen) as events_seen,
        to_json(collect_list(named_struct(
            'data_collection', collections.data_collection,
            'events_expected', collections.events_expected,
            'events_seen', collections.events_seen
        ))) as data_collections,
        coalesce(bool_and(collections.events_expected = collections.events_seen), false)
            as collections_complete,
        least(min(collections.first_loaded_at), max(ends.end_loaded_at)) as first_loaded_at,
        greatest(max(collections.last_loaded_at), max(ends.end_loaded_at)) as last_loaded_at
    from collections
    left join ends
        on collections.transaction_id = ends.transaction_id
        and collections.source_db = ends.source_db
    group by collections.transaction_id, collections.source_db

),

loads as (

    -- every load, when transactions may time out (none otherwise: no scan)
    select distinct _loaded_at from {{ ref('stg_cdc__messages') }}
    where {{ 'true' if settings.wait_max_hours is not none else 'false' }}

),

timeouts as (

    -- the first load at least cdc_transaction_wait_max_hours after the transaction's first
    select
        transactions.transaction_id,
        transactions.source_db,
        min(loads._loaded_at) as timed_out_at
    from transactions
    inner join loads
        on loads._loaded_at >= transactions.first_loaded_at
            + make_dt_interval(0, 0, 0, {{ '%.6f' | format((settings.wait_max_hours or 0) * 3600) }})
    group by transactions.transaction_id, transactions.source_db

),

statuses as (

    select
        transactions.*,
        timeouts.timed_out_at,
        case
            when transactions.end_seen
                and transactions.events_seen = transactions.events_expected
                and transactions.collections_complete
                then 'complete'
            when {{ _cdc_in_list('transactions.transaction_id', settings.release) }}
                then 'released'
            when timeouts.timed_out_at is not null then 'timed_out'
            else 'waiting'
        end as transaction_state
    from transactions
    left join timeouts
        on transactions.transaction_id = timeouts.transaction_id
        and transactions.source_db = timeouts.source_db

),

final as (

    select
        transaction_id,
        source_db,
        transaction_state,
        case transaction_state
            when 'complete' then last_loaded_at
            when 'released' then last_loaded_at
            when 'timed_out' then timed_out_at
        end as released_at,
        end_seen,
        events_expected,
        events_seen,
        data_collections,
        first_loaded_at,
        last_loaded_at
    from statuses

)

select * from final
