{{ config(materialized='cdc_view') }}

-- The schema history: one row per table change of every Debezium schema-change event
-- (topic <server>), with the table's primary key and columns after the change; and one
-- row per DDL message of DataWorks (CREATE, ALTER, ERASE, RENAME, CINDEX, DINDEX, QUERY:
-- `ddl.text`, `schema.primaryKey`, `schema.dataColumn`), Canal (`isDdl`: `sql`) and
-- Maxwell (table-* / database-*: `sql`, `def`).

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
    where _cdc_envelope like 'debezium%'

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

debezium as (

    select
        _message_id,
        'debezium_relational' as _cdc_envelope,
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

),

ddl_messages as (

    select
        control_messages.*,
        from_json(
            message_value,
            'struct<schema: struct<primaryKey: array<string>, '
            || 'dataColumn: array<struct<name: string, type: string>>>, '
            || 'payload: struct<ddl: struct<text: string>>, sql: string, def: string>'
        ) as envelope
    from control_messages
    where not _cdc_envelope like 'debezium%'

),

other_formats as (

    select
        _message_id,
        _cdc_envelope,
        _cdc_source_db as source_database_name,
        _cdc_source_schema as source_schema_name,
        coalesce(envelope.payload.ddl.text, envelope.sql) as ddl,
        case _cdc_op
            when 'ERASE' then 'DROP'
            when 'table-create' then 'CREATE'
            when 'table-alter' then 'ALTER'
            when 'table-drop' then 'DROP'
            else _cdc_op
        end as change_type,
        concat_ws('.', _cdc_source_db, _cdc_source_schema, _cdc_source_table) as table_id,
        _cdc_source_id,
        transform(envelope.schema.primarykey, pk_column -> lower(pk_column)) as primary_key_columns,
        coalesce(to_json(envelope.schema.datacolumn), envelope.def) as columns_json,
        _cdc_source_ts,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from ddl_messages

),

final as (

    select * from debezium
    union all
    select * from other_formats

)

select * from final
