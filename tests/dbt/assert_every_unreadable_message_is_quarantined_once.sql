-- Reconciliation: every row change silver could not read (a message, or one row change of
-- a multi-row message: _cdc_row_index) is in cdc_quarantine exactly once, and the
-- quarantine holds nothing else from the envelope and file stages. A `dbt build` checks the messages
-- it loaded (cdc_test_scope).

{%- set scope = cdc_test_scope(ref('stg_cdc__messages')) %}

with

unreadable as (

    select distinct
        _message_id,
        _cdc_row_index
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind = 'error' and {{ cdc_scope_predicate(scope) }}

),

quarantined as (

    select
        _message_id,
        _cdc_row_index,
        count(*) as copies
    from {{ ref('cdc_quarantine') }}
    where quarantine_stage in ('envelope', 'file') and {{ cdc_scope_predicate(scope) }}
    group by _message_id, _cdc_row_index

),

final as (

    select
        coalesce(unreadable._message_id, quarantined._message_id) as _message_id,
        coalesce(unreadable._cdc_row_index, quarantined._cdc_row_index) as _cdc_row_index,
        coalesce(quarantined.copies, 0) as copies_in_quarantine
    from unreadable
    full outer join quarantined
        on
            unreadable._message_id = quarantined._message_id
            and unreadable._cdc_row_index = quarantined._cdc_row_index
    where
        unreadable._message_id is null
        or quarantined._message_id is null
        or quarantined.copies != 1

)

select * from final
