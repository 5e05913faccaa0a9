{{
    config(
        materialized='cdc_current_state',
        unique_key=['_cdc_source_id', 'id'],
    )
}}

with

changes as (

    select * from {{ ref('stg_shop__customers') }}

),

final as (

    select
        id,
        name,
        email,
        age,
        balance,
        score,
        vip,
        since,
        address_city,
        address_zip,
        first_tag,
        tags,
        visits,
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
        _loaded_at,
        _cdc_is_partial
    from changes

)

select * from final
