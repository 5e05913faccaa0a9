{{ config(materialized='view') }}

-- The schema history: one row per table change of every Debezium schema-change event
-- (topic <server>), with the table's primary key and columns after the change.

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
    where _cdc_message_kind = 'schema_change'

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
        from_json(bronze.message_value, '{{ _cdc_schema_change_schema() }}') as envelope
    from control_messages
    inner join bronze
        on control_messages._message_id = bronze._message_id

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
        coalesce(envelope.payload.databasename, envelope.databasename) as database_name,
        coalesce(envelope.payload.schemaname, envelope.schemaname) as schema_name,
        coalesce(envelope.payload.ddl, envelope.ddl) as ddl,
        table_change.type as change_type,
        table_change.id as table_id,
        lower(regexp_replace(table_change.id, '"', '')) as _cdc_source_id,
        table_change.table.primarykeycolumnnames as primary_key_columns,
        to_json(table_change.table.columns) as columns_json,
        timestamp_millis(
            coalesce(envelope.payload.source.ts_ms, envelope.source.ts_ms)
        ) as _cdc_source_ts,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from table_changes

)

select * from final
