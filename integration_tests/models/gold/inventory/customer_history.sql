{{
    config(
        materialized='cdc_history',
        unique_key=['_cdc_source_id', 'id'],
    )
}}

-- Type-2 history of customers: every version with its validity period (cdc_history:
-- the key, the value columns, and the CDC columns the versions are resolved from). A run
-- adds its batch of the typed change log and reads nothing else; late and replayed
-- events take their place when the history is read, or when it is resolved again.

with

changes as (

    select * from {{ ref('stg_inventory__customers') }}

),

final as (

    select
        _cdc_source_id,
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
        _cdc_position,
        _cdc_sort_key,
        _cdc_source_ts,
        _cdc_source_db,
        _cdc_error_reason,
        _loaded_at
    from changes

)

select * from final
