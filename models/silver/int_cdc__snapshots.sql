{{ config(
    materialized='cdc_view',
    enabled=_cdc_snapshots_enabled(),
) }}

-- One row per snapshot of a source table: the blocking (initial or ad hoc) snapshots by
-- the position their reads share, and the incremental reads of each table together.
-- A blocking snapshot of a table is complete once a read of the table is marked
-- `last_in_data_collection`, or a read of the same snapshot (same connector, source
-- database and position), of any table, is marked `last`: Debezium puts `last` on the
-- last read of the whole snapshot, after every table it reads. Incremental snapshots
-- never count as complete: Debezium announces their end on its notification channel,
-- not in the change events. gold's cdc_snapshot_reconciliation reads this view.

with

reads as (

    select
        _cdc_connector,
        _cdc_source_db,
        _cdc_source_id,
        _cdc_position,
        lower(cast(_cdc_snapshot as string)) as snapshot_marker,
        _loaded_at
    from {{ ref('stg_cdc__messages') }}
    where
        _cdc_is_snapshot
        and _cdc_op = 'r'
        and _cdc_error_reason is null

),

blocking_reads as (

    select * from reads
    where snapshot_marker != 'incremental' and _cdc_position is not null

),

snapshot_ends as (

    select
        _cdc_connector,
        _cdc_source_db,
        _cdc_position,
        min(_loaded_at) as ended_loaded_at
    from blocking_reads
    where snapshot_marker = 'last'
    group by _cdc_connector, _cdc_source_db, _cdc_position

),

blocking_tables as (

    select
        _cdc_connector,
        _cdc_source_db,
        _cdc_source_id,
        _cdc_position,
        count(*) as read_rows,
        min(_loaded_at) as first_loaded_at,
        min(
            case when snapshot_marker in ('last', 'last_in_data_collection') then _loaded_at end
        ) as table_ended_loaded_at
    from blocking_reads
    group by _cdc_connector, _cdc_source_db, _cdc_source_id, _cdc_position

),

blocking as (

    select
        blocking_tables._cdc_connector,
        blocking_tables._cdc_source_db,
        blocking_tables._cdc_source_id,
        'blocking' as snapshot_kind,
        blocking_tables._cdc_position as snapshot_position,
        blocking_tables.read_rows,
        blocking_tables.first_loaded_at,
        least(blocking_tables.table_ended_loaded_at, snapshot_ends.ended_loaded_at) as completed_loaded_at
    from blocking_tables
    left outer join snapshot_ends
        on blocking_tables._cdc_connector <=> snapshot_ends._cdc_connector
            and blocking_tables._cdc_source_db <=> snapshot_ends._cdc_source_db
            and blocking_tables._cdc_position = snapshot_ends._cdc_position

),

incremental as (

    select
        _cdc_connector,
        _cdc_source_db,
        _cdc_source_id,
        'incremental' as snapshot_kind,
        cast(null as string) as snapshot_position,
        count(*) as read_rows,
        min(_loaded_at) as first_loaded_at,
        cast(null as timestamp) as completed_loaded_at
    from reads
    where snapshot_marker = 'incremental'
    group by _cdc_connector, _cdc_source_db, _cdc_source_id

),

final as (

    select
        _cdc_connector,
        _cdc_source_db,
        _cdc_source_id,
        snapshot_kind,
        snapshot_position,
        read_rows,
        first_loaded_at,
        completed_loaded_at is not null as is_complete,
        completed_loaded_at,
        -- every read of the snapshot sorts at or above this sort key, every change
        -- committed before the snapshot's position below it
        case when completed_loaded_at is not null then concat(snapshot_position, ' 0') end as reconciles_before
    from (
        select * from blocking
        union all
        select * from incremental
    ) as snapshots

)

select * from final
