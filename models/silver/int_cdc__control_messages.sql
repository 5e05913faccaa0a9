{{
    config(
        materialized='cdc_incremental',
        incremental_strategy='append',
        cdc_input_kinds=['control'],
    )
}}

-- Transaction-metadata and schema-change messages with their raw value: the input of
-- stg_cdc__transactions and stg_cdc__schema_changes (rare messages, parsed on read); and
-- the rows of Debezium signal tables (var cdc_signal_tables), kept out of the change log.
-- A table, filled from new loads only: as a view, every query of those two models (and
-- each of their data tests) read the value of every message in bronze to find the few it
-- joins, 42 s a test at 5M events. The value comes with the message from
-- stg_cdc__messages (_cdc_control_value), which carries it for these kinds only: bronze is
-- read once, by the parsing model. A run whose new messages held none of these kinds
-- (stg_cdc__messages records what its writes held: cdc_input_kinds) leaves the table as
-- it is without a query.

{%- set watermark = cdc_new_input_since() %}
{%- set skip_run = cdc_skip_unless_new_input() %}
{{ skip_run }}

with

final as (

    select
        _message_id,
        _cdc_message_kind,
        _cdc_envelope,
        _cdc_op,
        _cdc_source_db,
        _cdc_source_schema,
        _cdc_source_table,
        _cdc_source_id,
        _cdc_position,
        _cdc_source_ts,
        _cdc_transaction_id,
        _cdc_control_value as message_value,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind in ('transaction', 'schema_change', 'signal')
    {%- if skip_run %}
        and false
    {%- endif %}
    {% if cdc_is_incremental() %}
        and _loaded_at > {{ watermark }}
    {% endif %}

)

select * from final
