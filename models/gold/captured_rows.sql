{{
    config(
        materialized='cdc_current_state',
        unique_key=['_cdc_source_id', '_cdc_key'],
        cdc_columns_on_read={
            '_cdc_decoded_image': cdc_decode_row_image('_cdc_row_json_raw', '_cdc_column_types'),
            '_cdc_row_json': '_cdc_decoded_image.json',
            '_cdc_is_decoded': '_cdc_decoded_image.is_decoded',
        },
        cdc_unpublished_columns=['_cdc_column_types', '_cdc_decoded_image'],
    )
}}

-- The current row of every key of every captured table, declared or not: query any
-- table before anyone writes a typed model for it. For a document collection the row is
-- the whole current document (extended JSON in the normal form of python_udfs/mongodb.py),
-- flagged by _cdc_is_partial while its base document was never seen. _cdc_row_json_raw is
-- the image as the message carried it (its unavailable values carried over in silver,
-- int_cdc__carried_changes); _cdc_row_json holds the values the message's own
-- schema says how to decode (decimals, dates, times, timestamps) as text. Decoding is
-- needed for the current row only: the published view decodes it when a query reads it
-- (cdc_columns_on_read), so a key changed a thousand times is decoded once, not a thousand
-- times. The image is decoded once for both columns (_cdc_decoded_image, not shown).

with

changes as (

    select * from {{ ref('int_cdc__change_log') }}

),

images as (

    select
        *,
        case when _cdc_op = 'd' then _cdc_before else _cdc_after end as _cdc_row_json_raw
    from changes

),

final as (

    select
        _cdc_source_id,
        _cdc_source_db,
        _cdc_source_schema,
        _cdc_source_table,
        _cdc_key,
        _cdc_row_json_raw,
        _cdc_column_types,
        _cdc_is_partial,
        _cdc_op,
        _cdc_connector,
        _cdc_position,
        _cdc_sort_key,
        _cdc_source_ts,
        _loaded_at
    from images

)

select * from final
