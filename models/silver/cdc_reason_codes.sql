{{ config(materialized='cdc_view') }}

-- Every quarantine reason code, what it means and what to do about it. A model rather than
-- a seed, so that a plain `dbt run` on a new schema builds everything that depends on it.

with

reason_codes as (

    select * from values
        (
            'unreadable_file',
            'file',
            'A landing file could not be read whole: its codec failed before its end (a '
            || 'truncated or corrupt gzip, bzip2, zlib or zstd stream, or a file that vanished '
            || 'or could not be opened). None of its lines is kept; the other files load.',
            'Land a readable copy of the file (a new modification time): the next run loads it '
            || 'whole. cdc_quarantine.raw_line gives its size, time and the lines read before '
            || 'the failure.'
        ),
        (
            'empty_file',
            'file',
            'A landing file has no bytes (0 bytes: an upload or copy that never wrote, or a '
            || 'sink file cut at its start). It holds no message; it is recorded so that the '
            || 'run says so and later runs do not read it again.',
            'Land the file again (a new modification time): the next run loads it. '
            || 'cdc_quarantine.raw_line gives its time.'
        ),
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
            'The message has no source block (no longer raised: such a change is ordered by '
            || 'arrival; kept for quarantined rows of earlier runs).',
            'Reload the file (dbt build --full-refresh of stg_cdc__messages) to read it again.'
        ),
        (
            'unknown_connector',
            'envelope',
            'The source block carries position fields of no known connector (a block with no '
            || 'position field at all is read as connector debezium, ordered by arrival).',
            'Set source.connector or add an ordering rule for the connector (docs/architecture.md).'
        ),
        (
            'unsupported_connector',
            'envelope',
            'The connector is not one of a registered connector family.',
            'Wait for its envelope family or add it (docs/architecture.md).'
        ),
        (
            'missing_table',
            'envelope',
            'Neither the message, its schema name nor its topic names the table.',
            'Check the connector configuration, or name the topic''s table in the var cdc_topic_tables.'
        ),
        (
            'bad_position',
            'envelope',
            'The source position is incomplete or not a number (a message with no position '
            || 'field at all is ordered by arrival).',
            'Check the connector version; ordering needs the position.'
        ),
        (
            'missing_after',
            'envelope',
            'A create, update or snapshot read carries no after image.',
            'Check the column filters of the connector.'
        ),
        (
            'flattened_without_key',
            'envelope',
            'A flattened Debezium record (ExtractNewRecordState) carries no key: no Kafka key '
            || 'landed and none is declared for its table. A flattened row cannot be keyed by '
            || 'its whole image.',
            'Declare the key (var cdc_table_keys, or a contract''s meta.cdc_key), or land the '
            || 'records with their Kafka keys (kcat -J, Kafka).'
        ),
        (
            'delete_without_key',
            'envelope',
            'A delete has no before image and the message has no key.',
            'Land the Kafka keys too (kcat -J) or set the REPLICA IDENTITY to FULL on PostgreSQL.'
        ),
        (
            'missing_patch',
            'envelope',
            'A MongoDB update carries neither a document (after), a patch nor an '
            || 'updateDescription.',
            'Check the connector version and its capture mode.'
        ),
        (
            'missing_document_id',
            'envelope',
            'No _id in the document, the filter, the before image or the Kafka key.',
            'Land the Kafka keys too (kcat -J) or keep _id in the connector field filters.'
        ),
        (
            'malformed_extended_json',
            'document',
            'A document or patch holds extended JSON that cannot be read ($oid that is not '
            || 'hex, $numberLong that is not a number, a date that is not a date...).',
            'Check the producer; the message is kept in bronze and the document is left as '
            || 'it was.'
        ),
        (
            'malformed_document',
            'document',
            'A document or patch is not a JSON object.',
            'Check the producer; the message is kept in bronze.'
        ),
        (
            'unknown_patch_operator',
            'document',
            'An oplog patch uses an operator other than $set, $unset and the $v 2 diff.',
            'Debezium publishes idempotent patches; check the MongoDB and connector versions.'
        ),
        (
            'patch_path_through_scalar',
            'document',
            'A patch sets or removes a path whose parent is a scalar in the current document '
            || '(the document here and at the source disagree).',
            'Re-snapshot the collection, or replay its messages from bronze with --full-refresh.'
        ),
        (
            'malformed_patch',
            'document',
            'An oplog patch or change-stream updateDescription is not of the documented shape '
            || '(a $set body that is not an object, an unknown $v 2 diff key...).',
            'Check the MongoDB and connector versions; the message is kept in bronze.'
        ),
        (
            'patch_path_through_array',
            'document',
            'A patch path names a field of an array (a segment that is not an index).',
            'Re-snapshot the collection, or replay its messages from bronze with --full-refresh.'
        ),
        (
            'patch_path_invalid',
            'document',
            'A patch path is empty, has an empty segment, or pads an array beyond the limit.',
            'Check the producer; the message is kept in bronze.'
        ),
        (
            'missing_id',
            'document',
            'A document or replacement has no _id and none is known for its key.',
            'Check the connector field filters: _id must be captured.'
        ),
        (
            'malformed_base',
            'document',
            'The stored document a patch applies to is not readable.',
            'Rebuild int_cdc__document_changes with --full-refresh.'
        ),
        (
            'malformed_key',
            'document',
            'The document key handed to the fold is not readable.',
            'Report it with the message from bronze.'
        ),
        (
            'malformed_changes',
            'document',
            'The changes handed to the fold are not a JSON array.',
            'Report it; rebuild int_cdc__document_changes with --full-refresh after a fix.'
        ),
        (
            'internal_error',
            'document',
            'The document fold failed unexpectedly on this change.',
            'Report it with the message from bronze; the document is left as it was.'
        ),
        (
            'partial_document',
            'document',
            'A patch was applied to a document (or an OGG compressed update to a row) whose '
            || 'full version never arrived (its insert predates the landing data): gold keeps '
            || 'it flagged _cdc_is_partial.',
            'Land the earlier messages or run an (incremental) snapshot of the collection or '
            || 'table: a full document or row replaces the partial one.'
        ),
        (
            'fold_failed',
            'document',
            'The document fold returned no result for a change.',
            'Report it with the message from bronze; rebuild with --full-refresh after a fix.'
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
