{{ config(materialized='view') }}

-- The schema history: one row per table change of every Debezium schema-change event
-- (topic <server>), with the table's primary key and columns after the change.

with

control_messages as (

    select * from {{ ref('int_cdc__control_messages') }}
    where _cdc_message_kind = 'schema_change'

),

parsed as (

    select
        _message_id,
        from_json(message_value, '{{ _cdc_schema_change_schema() }}') as envelope,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from control_messages

),

table_changes as (

    select
        parsed.*,
        exploded.table_change
    from parsed
        lateral view outer explode(
            coalesce(parsed.envelope.payload.tablechanges, parsed.envelope.tablechanges)
        ) exploded as table_change

),

final as (

    select
        _message_id,
        coalesce(envelope.payload.databasename, envelope.databasename) as source_database_name,
        coalesce(envelope.payload.schemaname, envelope.schemaname) as source_schema_name,
        coalesce(envelope.payload.ddl, envelope.ddl) as ddl,
        table_change.type as change_type,
        table_change.id as table_id,
        lower(regexp_replace(table_change.id, '"', '')) as _cdc_source_id,
        table_change.table.primarykeycolumnnames as primary_key_columns,
        to_json(table_change.table.columns) as columns_json,
        timestamp_millis(try_cast(
            coalesce(envelope.payload.source.ts_ms, envelope.source.ts_ms) as bigint
        )) as _cdc_source_ts,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from table_changes

)

select * from final
