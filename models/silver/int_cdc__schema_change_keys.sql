{{
    config(
        materialized='cdc_incremental',
        incremental_strategy='append',
        cdc_input_kinds=['table_changes'],
    )
}}

-- The primary key every Debezium schema-change event announces for a table, read straight
-- from bronze: stg_cdc__messages keys the messages of tables without a message key or a
-- declared key by it, so this cannot derive from stg_cdc__messages. A run whose new bronze
-- lines held no schema-change event (bronze records it: cdc_input_kinds) leaves the table
-- as it is without a query.

{%- set skip_run = cdc_skip_unless_new_input() %}
{{ skip_run }}

with

bronze as (

    select
        bronze_messages._message_id,
        bronze_messages.message_value,
        bronze_messages._kafka_partition,
        bronze_messages._kafka_offset,
        bronze_messages._source_file,
        bronze_messages._source_line,
        bronze_messages._loaded_at
    from {{ ref('bronze_cdc_messages') }} as bronze_messages
    where {{ _cdc_announces_table_changes('bronze_messages.message_value') }}
    {%- if skip_run %}
        and false
    {%- endif %}
    {% if cdc_is_incremental() %}
        -- few messages are schema changes: the read-through mark keeps a run to new loads
        and bronze_messages._loaded_at > {{ cdc_new_input_since() }}
    {% endif %}

),

parsed as (

    select
        bronze.*,
        from_json(message_value, '{{ _cdc_schema_change_schema() }}') as envelope
    from bronze

),

table_changes as (

    select
        parsed.*,
        exploded.table_change
    from parsed
        lateral view explode(
            coalesce(parsed.envelope.payload.tablechanges, parsed.envelope.tablechanges)
        ) exploded as table_change

),

final as (

    select
        _message_id,
        lower(regexp_replace(table_change.id, '"', '')) as _cdc_source_id,
        table_change.type as change_type,
        transform(table_change.table.primarykeycolumnnames, pk_column -> lower(pk_column))
            as primary_key_columns,
        timestamp_millis(try_cast(
            coalesce(envelope.payload.source.ts_ms, envelope.source.ts_ms) as bigint
        )) as _cdc_source_ts,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from table_changes
    where table_change.id is not null

)

select * from final
