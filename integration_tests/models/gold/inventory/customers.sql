{{
    config(
        materialized='cdc_current_state',
        unique_key=['_cdc_source_id', 'id'],
    )
}}

with

changes as (

    select * from {{ ref('stg_inventory__customers') }}

),

final as (

    select
        id,
        first_name,
        last_name,
        email,
        balance,
        birth_date,
        created_at,
        is_active,
        contact_time,
        last_seen_at,
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
