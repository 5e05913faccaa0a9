{{
    config(
        materialized='cdc_current_state',
        unique_key=['_cdc_source_id', 'order_id', 'line_no'],
    )
}}

with

changes as (

    select * from {{ ref('stg_inventory__order_lines') }}

),

final as (

    select
        order_id,
        line_no,
        sku,
        qty,
        unit_price,
        _cdc_op,
        _cdc_connector,
        _cdc_source_id,
        _cdc_source_db,
        _cdc_key,
        _cdc_position,
        _cdc_sort_key,
        _cdc_source_ts,
        _cdc_undeclared_columns,
        _cdc_error_reason,
        _loaded_at
    from changes

)

select * from final
