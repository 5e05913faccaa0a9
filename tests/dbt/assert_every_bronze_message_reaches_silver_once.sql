-- Reconciliation: every bronze message is in stg_cdc__messages exactly once (as a change,
-- a tombstone, a control message or an error). Returns the messages that break it.

with

bronze as (

    select _message_id from {{ ref('bronze_cdc_messages') }}

),

silver as (

    select
        _message_id,
        count(*) as copies
    from {{ ref('stg_cdc__messages') }}
    group by _message_id

),

final as (

    select
        coalesce(bronze._message_id, silver._message_id) as _message_id,
        coalesce(silver.copies, 0) as copies_in_silver,
        bronze._message_id is not null as in_bronze
    from bronze
    full outer join silver
        on bronze._message_id = silver._message_id
    where
        bronze._message_id is null
        or silver._message_id is null
        or silver.copies != 1

)

select * from final
