{{ config(
    materialized='cdc_view',
    enabled=_cdc_transaction_settings().sources | length > 0,
) }}

-- What transaction consistency holds back, and what it let through incomplete: every
-- transaction of a transaction-consistent source that is not complete (END not loaded, or
-- fewer events loaded than it announced), with what is missing per data collection.

with

transactions as (

    select * from {{ ref('int_cdc__transaction_releases') }}
    where transaction_state != 'complete'

),

newest_load as (

    select max(_loaded_at) as newest_loaded_at from {{ ref('stg_cdc__messages') }}

),

final as (

    select
        transactions.transaction_id,
        transactions.source_db,
        transactions.transaction_state,
        transactions.released_at,
        transactions.end_seen,
        transactions.events_expected,
        transactions.events_seen,
        transactions.data_collections,
        transactions.first_loaded_at,
        transactions.last_loaded_at,
        round(
            (
                unix_micros(newest_load.newest_loaded_at)
                - unix_micros(transactions.first_loaded_at)
            ) / 3600e6,
            3
        ) as waited_hours
    from transactions
    cross join newest_load

)

select * from final
