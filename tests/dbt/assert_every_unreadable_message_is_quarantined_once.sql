-- Reconciliation: every message silver could not read is in cdc_quarantine exactly once,
-- and the quarantine holds nothing else from the envelope stage.

with

unreadable as (

    select distinct _message_id
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind = 'error'

),

quarantined as (

    select
        _message_id,
        count(*) as copies
    from {{ ref('cdc_quarantine') }}
    where quarantine_stage = 'envelope'
    group by _message_id

),

final as (

    select
        coalesce(unreadable._message_id, quarantined._message_id) as _message_id,
        coalesce(quarantined.copies, 0) as copies_in_quarantine
    from unreadable
    full outer join quarantined
        on unreadable._message_id = quarantined._message_id
    where
        unreadable._message_id is null
        or quarantined._message_id is null
        or quarantined.copies != 1

)

select * from final
