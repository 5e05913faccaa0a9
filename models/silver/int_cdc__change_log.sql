{{ config(materialized='view') }}

-- Every readable row change (c, u, d, r, t) of every captured table, in the common shape.

with

messages as (

    select * from {{ ref('stg_cdc__messages') }}

),

final as (

    select
        _message_id,
        _cdc_envelope,
        _cdc_connector,
        _cdc_op,
        _cdc_source_db,
        _cdc_source_schema,
        _cdc_source_table,
        _cdc_source_id,
        _cdc_key,
        _cdc_before,
        _cdc_after,
        _cdc_column_types,
        _cdc_position,
        _cdc_sort_key,
        _cdc_is_snapshot,
        _cdc_snapshot,
        _cdc_source_ts,
        _cdc_emitted_ts,
        _cdc_transaction_id,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at,
        _load_id
    from messages
    where _cdc_message_kind = 'change'

)

select * from final
