{{ config(materialized='cdc_current_state', unique_key=['_cdc_source_id', '_cdc_key']) }}

-- The current row of every key of every captured table, declared or not: query any
-- table before anyone writes a typed model for it. For a document collection the row is
-- the whole current document (extended JSON in the normal form of python_udfs/mongodb.py),
-- flagged by _cdc_is_partial while its base document was never seen.

with

changes as (

    select * from {{ ref('int_cdc__change_log') }}

),

final as (

    select
        _cdc_source_id,
        _cdc_source_db,
        _cdc_source_schema,
        _cdc_source_table,
        _cdc_key,
        case when _cdc_op = 'd' then _cdc_before else _cdc_after end as _cdc_row_json,
        _cdc_is_partial,
        _cdc_op,
        _cdc_connector,
        _cdc_position,
        _cdc_sort_key,
        _cdc_source_ts,
        _loaded_at
    from changes

)

select * from final
