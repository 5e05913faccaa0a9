{{ config(materialized='view') }}

-- Every quarantine reason code, what it means and what to do about it. A model rather than
-- a seed, so that a plain `dbt run` on a new schema builds everything that depends on it.

with

reason_codes as (

    select * from values
        (
            'invalid_utf8',
            'envelope',
            'The bytes of the line are not valid UTF-8.',
            'Fix the encoding of the producer; the original bytes are in '
            || 'bronze_cdc_messages.raw_line_base64.'
        ),
        (
            'malformed_json',
            'envelope',
            'The message is not valid JSON.',
            'Check the file for corruption or a non-JSON header; the raw line is kept in bronze.'
        ),
        (
            'truncated_json',
            'envelope',
            'The message ends before its JSON object closes (a line cut short).',
            'Re-deliver the file from the source; the partial line is kept in bronze.'
        ),
        (
            'not_an_object',
            'envelope',
            'The message is valid JSON but not an object (an array or a scalar).',
            'Check what the producer writes: a CDC message is a JSON object.'
        ),
        (
            'unknown_envelope',
            'envelope',
            'The message has no op and is not a transaction or schema-change event of a known '
            || 'connector.',
            'Point the pipeline only at CDC topics or add the envelope (docs/architecture.md).'
        ),
        (
            'unknown_op',
            'envelope',
            'The op is not one of c u d r t (or, for DataWorks, Canal, Maxwell and OGG, not an op '
            || 'of the format: the reason names it).',
            'Check the connector version; the message is kept as sent.'
        ),
        (
            'missing_source',
            'envelope',
            'The message has no source block.',
            'Check the connector configuration (the source block is mandatory in Debezium).'
        ),
        (
            'unknown_connector',
            'envelope',
            'The source block matches no known connector.',
            'Set source.connector or add an ordering rule for the connector (docs/architecture.md).'
        ),
        (
            'unsupported_connector',
            'envelope',
            'The connector is not a relational Debezium connector that this project reads.',
            'Wait for its envelope family or add it (docs/architecture.md).'
        ),
        (
            'missing_table',
            'envelope',
            'source.table is absent.',
            'Check the connector configuration.'
        ),
        (
            'bad_position',
            'envelope',
            'The source position is missing or not a number.',
            'Check the connector version; ordering needs the position.'
        ),
        (
            'missing_after',
            'envelope',
            'A create, update or snapshot read carries no after image.',
            'Check the column filters of the connector.'
        ),
        (
            'delete_without_key',
            'envelope',
            'A delete has no before image and the message has no key.',
            'Land the Kafka keys too (kcat -J) or set the REPLICA IDENTITY to FULL on PostgreSQL.'
        ),
        (
            'type_mismatch',
            'typed',
            'A value cannot be read as the contract type of its column.',
            'Fix the data_type or meta.cdc_encoding and rebuild with --full-refresh.'
        ),
        (
            'missing_row_key',
            'envelope',
            'The row image lacks a key column the message names (DataWorks schema.primaryKey or '
            || 'row id, Canal pkNames, Maxwell primary_key_columns, OGG primary_keys).',
            'Check the sync task configuration; the message is kept as sent.'
        ),
        (
            'missing_key',
            'typed',
            'A key column of the contract is null.',
            'Check the key of the contract and the source column names.'
        )
            as codes (reason_code, stage, meaning, remedy)

),

final as (

    select
        reason_code,
        stage,
        meaning,
        remedy
    from reason_codes

)

select * from final
