{{ config(materialized='cdc_view') }}

{%- set change_log_columns = _cdc_change_log_columns() -%}
{%- set row_columns = {'_cdc_is_partial': 'false as _cdc_is_partial'} -%}
{%- set transactions = _cdc_transaction_settings() -%}
{%- set document_columns = {
    '_cdc_column_types': 'cast(null as map<string, struct<type: string, name: string, '
        ~ 'scale: string, precision: string>>) as _cdc_column_types'
} -%}

-- Every readable row change (c, u, d, r, t) of every captured table, in the common shape:
-- row images as the message carried them; for keyless tables one row per copy of a row
-- (int_cdc__keyless_changes), and for document collections and the tables of families
-- whose update images may be partial (OGG) the whole document or row after each change
-- (int_cdc__document_changes). Changes of a transaction-consistent source's
-- transactions (var cdc_transaction_consistent_sources) appear once their transaction is
-- released (int_cdc__transaction_releases), with the release's load as `_loaded_at`. A change
-- whose unavailable values (PostgreSQL TOAST) were carried over reads as its newest
-- resolution (int_cdc__carried_changes).

with

carried_messages as (

    select distinct
        _message_id as carried_message_id,
        _cdc_row_index as carried_row_index
    from {{ ref('int_cdc__carried_changes') }}

),

row_changes as (

    select
        {{ _cdc_select_list(change_log_columns, row_columns) }}
    from {{ ref('stg_cdc__messages') }} as messages
    left outer join carried_messages
        on messages._message_id = carried_messages.carried_message_id
            and messages._cdc_row_index = carried_messages.carried_row_index
    where messages._cdc_message_kind = 'change'
        and not {{ _cdc_is_folded_change('messages') }}
        and not messages._cdc_is_keyless
        -- a change whose unavailable values were carried over reads as its newest resolution
        and carried_messages.carried_message_id is null

),

resolutions as (

    select
        *,
        row_number() over (
            partition by _message_id, _cdc_row_index order by _cdc_sort_key desc
        ) as resolution_rank
    from {{ ref('int_cdc__carried_changes') }}

),

carried_changes as (

    select
        {{ _cdc_select_list(change_log_columns) }}
    from resolutions
    where resolution_rank = 1

),

keyless_changes as (

    select
        {{ _cdc_select_list(change_log_columns, row_columns) }}
    from {{ ref('int_cdc__keyless_changes') }}

),

document_changes as (

    select
        {{ _cdc_select_list(change_log_columns, document_columns) }}
    from {{ ref('int_cdc__document_changes') }}
    where _cdc_error_reason is null

),

final as (

    select * from row_changes
    union all
    select * from carried_changes
    union all
    select * from keyless_changes
    union all
    select * from document_changes

)
{%- if transactions.sources %},

released as (

    select transaction_id, source_db, released_at
    from {{ ref('int_cdc__transaction_releases') }}
    where released_at is not null

),

held as (

    select * from final
    where _cdc_transaction_id is not null
        and {{ cdc_source_matches({'database': transactions.sources}, '_cdc_source_db', "''", "''") }}

),

released_changes as (

    -- a change loaded after its transaction's release (a late event) keeps its own load
    select
        {{ _cdc_select_list(change_log_columns, {
            '_loaded_at': 'greatest(held._loaded_at, released.released_at) as _loaded_at'
        }) }}
    from held
    inner join released
        on held._cdc_transaction_id = released.transaction_id
        and lower(held._cdc_source_db) = released.source_db

),

gated as (

    select * from final
    where not (
        _cdc_transaction_id is not null
        and {{ cdc_source_matches({'database': transactions.sources}, '_cdc_source_db', "''", "''") }}
    )
    union all
    select * from released_changes

)
{%- endif %}

select * from {{ 'gated' if transactions.sources else 'final' }}
