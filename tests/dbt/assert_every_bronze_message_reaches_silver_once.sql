-- Reconciliation: every bronze message is in stg_cdc__messages exactly once (as a change,
-- a tombstone, a control message or an error): one row at _cdc_row_index 0, and a message
-- split into several row changes has each index 0..n-1 once. Returns the messages that
-- break it. A `dbt build` checks the messages it loaded (cdc_test_scope).

{%- set scope = cdc_test_scope(ref('bronze_cdc_messages')) %}

with

bronze as (

    select _message_id from {{ ref('bronze_cdc_messages') }}
    where {{ cdc_scope_predicate(scope) }}

),

silver as (

    select
        _message_id,
        count_if(_cdc_row_index = 0) as copies,
        count(*) as row_changes,
        count(distinct _cdc_row_index) as distinct_indexes,
        max(_cdc_row_index) as last_index
    from {{ ref('stg_cdc__messages') }}
    where {{ cdc_scope_predicate(scope) }}
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
        or silver.row_changes != silver.distinct_indexes
        or silver.last_index != silver.row_changes - 1

)

select * from final
