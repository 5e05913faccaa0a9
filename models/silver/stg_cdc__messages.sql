{{
    config(
        materialized='cdc_incremental',
        incremental_strategy='append',
        cdc_summary=_cdc_message_summary(),
    )
}}

-- One row per bronze message (per row change of a message that carries several, see
-- _cdc_row_index): its envelope unpacked into the common change-log shape by
-- the connector family that reads it (macros/connectors/<family>/, registered in
-- _cdc_connector_families), or the reason it cannot be read. Each message is parsed once,
-- with the union schema of every family (_cdc_envelope_schema); the hooks compiled are
-- those of the families the new messages hold (_cdc_present_families). Each write records
-- what its rows hold (config cdc_summary, _cdc_message_summary: keyless rows, truncates,
-- folded changes, control messages): the models that read some kinds only know without a
-- query that none of theirs arrived (config cdc_input_kinds).

{%- set watermark = cdc_new_input_since() %}
{#-
    the hooks of the families the new messages hold, when they are few
    (var cdc_family_probe_max_messages); a run that will leave the table as it is (its
    inputs hold nothing it has not read: cdc_skip_unless_new_input) asks nothing of
    bronze, nor does a compile before bronze exists (dbt docs generate on an unbuilt
    project)
-#}
{%- set families = _cdc_connector_families() %}
{%- set skip_run = cdc_skip_unless_new_input() %}
{{ skip_run }}
{%- if not skip_run and load_relation(ref('bronze_cdc_messages')) is not none %}
    {%- if watermark %}
        {#- a table built before _cdc_control_value existed is rebuilt, not appended to -#}
        {%- do _cdc_require_columns(this, ['_cdc_control_value']) %}
    {%- endif %}
    {%- set new_messages = '_loaded_at > ' ~ watermark if watermark else 'true' %}
    {#- how many: bronze's last write counted them when it loaded exactly these -#}
    {%- if _cdc_rows_loaded_after(ref('bronze_cdc_messages'), watermark[10:-1] if watermark else none)
            <= cdc_lakehouse.cdc_var('cdc_family_probe_max_messages') | int %}
        {%- set families = _cdc_present_families(ref('bronze_cdc_messages'), new_messages) %}
    {%- endif %}
{%- endif %}

with

bronze as (

    select
        bronze_messages._message_id,
        bronze_messages.message_key,
        bronze_messages.message_value,
        bronze_messages._is_tombstone,
        bronze_messages._is_valid_utf8,
        bronze_messages._record_format,
        bronze_messages._kafka_topic,
        bronze_messages._kafka_partition,
        bronze_messages._kafka_offset,
        bronze_messages._source_file,
        bronze_messages._source_line,
        bronze_messages._loaded_at,
        {%- if 'debezium_flattened' in families %}
        -- the fields ExtractNewRecordState added as headers (add.headers), which a kcat
        -- record, and one read from Kafka, keeps in raw_line (parsed only when it has them)
        case
            when bronze_messages._record_format in ('kcat', 'kafka')
                and instr(bronze_messages.raw_line, '"headers"') > 0
                then {{ _debezium_flattened_header_list('bronze_messages.raw_line') }}
        end as kafka_headers,
        {%- endif %}
        bronze_messages._load_id
    from {{ ref('bronze_cdc_messages') }} as bronze_messages
    {% if cdc_is_incremental() %}
        where bronze_messages._loaded_at > {{ watermark }}
    {% endif %}

),

parsed as (

    select
        bronze.*,
        case
            when message_value is not null
                then from_json(
                        message_value,
                        '{{ _cdc_envelope_schema() }}',
                        map('columnNameOfCorruptRecord', '_corrupt_record')
                    )
        end as envelope,
        case
            when message_key is not null
                then from_json(message_key, 'struct<schema: string, payload: string>')
        end as key_envelope
    from bronze

),

recovered as (

    -- a flattened Debezium row (debezium_flattened) whose own columns clash with an
    -- envelope's fields (a column `payload` or `schema` holding text) does not parse under
    -- the union schema: such a message is parsed again with the flattened fields alone
    -- (_debezium_flattened_reparse), which every JSON object parses under
    select
        parsed.*,
        {%- if 'debezium_flattened' in families %}
        {{ _debezium_flattened_headers('parsed.kafka_headers') }} as flattened_headers,
        {{ _cdc_envelope_body('parsed.envelope') }} as envelope_body,
        case
            when parsed.envelope._corrupt_record is not null
                then {{ _debezium_flattened_reparse('parsed.message_value') }}
        end as flattened_body
        {%- else %}
        cast(null as struct<_cdc_none: string>) as flattened_body
        {%- endif %}
    from parsed

),

detected as (

    select
        recovered.*,
        {%- if 'debezium_flattened' in families %}
        case
            when {{ _debezium_flattened_recovered('recovered', 'recovered.flattened_headers') }}
                then {{ _debezium_flattened_body('recovered.flattened_body', 'recovered.flattened_headers') }}
            -- in a lambda (_cdc_let): the merged body is computed once, not copied into
            -- each hook that reads it
            when recovered.flattened_headers is not null
                then {{ _cdc_let(
                    "named_struct('body', recovered.envelope_body, 'headers', recovered.flattened_headers)",
                    'parts',
                    _debezium_flattened_body('parts.body', 'parts.headers', 'parts.body')
                ) }}
            else recovered.envelope_body
        end as body,
        (recovered.envelope is null or recovered.envelope._corrupt_record is not null)
        and not {{ _debezium_flattened_recovered('recovered', 'recovered.flattened_headers') }} as is_malformed
        {%- else %}
        {{ _cdc_envelope_body('recovered.envelope') }} as body,
        recovered.envelope is null or recovered.envelope._corrupt_record is not null as is_malformed
        {%- endif %}
    from recovered

),

families as (

    select
        detected.*,
        case
            when not is_malformed then case
            {%- for family in families %}
                when {{ cdc_family_hook(family, 'detect')('detected') }} then '{{ family }}'
            {%- endfor %}
            end
            -- a tombstone with a key is a delete of that key where a family says so
            -- (detect_tombstone: a topic of flattened records); any other is no change
            when _is_tombstone and message_key is not null then case
            {%- for family in families %}
                when {{ cdc_family_hook(family, 'detect_tombstone')('detected') }} then '{{ family }}'
            {%- endfor %}
            end
        end as family
    from detected

),

identities as (

    select
        families.*,
        {{ _cdc_family_case('table_identity', 'families.family', 'families', families) }} as source_identity
    from families

),

declared as (

    -- the key declared for the message's table (the var cdc_table_keys, the typed
    -- contracts' meta.cdc_key), matched once per message: every family's key hook reads
    -- this column (cdc_key_from_image), so the plan holds the declared keys once
    select
        identities.*,
        {{ _cdc_declared_key('identities.source_identity') }} as declared_key
    from identities

),

exploded as (

    -- a message carrying several row changes (the family's row_images: Canal's multi-row
    -- data, a key change split into delete + update) becomes one row per row change, in
    -- order (_cdc_row_index); any other message is one row, index 0
    select
        declared.*,
        coalesce(row_images.row_index, 0) as _cdc_row_index,
        row_images.row_image
    from declared
        lateral view outer posexplode(
            {{ _cdc_family_case('row_images', 'declared.family', 'declared', families) }}
        ) row_images as row_index, row_image

),

identified as (

    select
        exploded.*,
        {{ _cdc_family_case('connector', 'exploded.family', 'exploded', families) }} as connector,
        {{ _cdc_family_case('message_kind', 'exploded.family', 'exploded', families) }} as kind,
        {{ _cdc_family_case('op', 'exploded.family', 'exploded', families) }} as op
    from exploded

),

announced_keys as (

    -- the newest primary key the schema-change topic announced for each table
    select
        _cdc_source_id as announced_source_id,
        max_by(
            primary_key_columns,
            struct(
                _cdc_source_ts, _loaded_at, _kafka_partition, _kafka_offset, _source_file,
                _source_line
            )
        ) as announced_key
    from {{ ref('int_cdc__schema_change_keys') }}
    where change_type != 'DROP' and size(primary_key_columns) > 0
    group by _cdc_source_id

),

located as (

    -- the announced key looked up in a map built once by a scalar subquery, not joined:
    -- a join here had Spark's dynamic partition pruning trace its key back through every
    -- hook's expression (decision 0036)
    select
        identified.*,
        identified.source_identity.db as source_db,
        identified.source_identity.schema as source_schema,
        identified.source_identity.table as source_table,
        (
            select map_from_entries(collect_list(struct(announced_source_id, announced_key)))
            from announced_keys
            where announced_source_id is not null
        )[lower(concat_ws(
            '.',
            identified.source_identity.db,
            identified.source_identity.schema,
            identified.source_identity.table
        ))] as announced_key
    from identified

),

arrived as (

    -- where the message arrived, as a string sorting in arrival order: its Kafka partition
    -- and offset (a copy delivered again has the same), else its load, file and line
    select
        located.*,
        case
            when _kafka_offset is not null
                then concat(
                        lpad(cast(coalesce(_kafka_partition, 0) as string), 6, '0'),
                        lpad(cast(_kafka_offset as string), 20, '0')
                    )
            else concat(
                    date_format(_loaded_at, 'yyyyMMddHHmmssSSSSSS'),
                    _source_file,
                    lpad(cast(_source_line as string), 12, '0')
                )
        end as arrival
    from located

),

unpacked as (

    -- a change whose envelope carries no source position (has_position: Flink CDC's and
    -- Flink SQL's writers, any producer of the format that leaves it out) takes its arrival
    -- as its position; one that carries a position that does not read keeps null
    -- (bad_position)
    select
        arrived.*,
        coalesce(
            {{ _cdc_family_case('position', 'arrived.family', 'arrived', families) }},
            case
                when kind = 'change'
                    and not {{ _cdc_family_case('has_position', 'arrived.family', 'arrived', families) }}
                    then arrival
            end
        ) as position,
        {{ _cdc_family_case('key', 'arrived.family', 'arrived', families, 'arrived.announced_key') }} as row_key,
        {{ _cdc_family_case('before', 'arrived.family', 'arrived', families) }} as before,
        {{ _cdc_family_case('after', 'arrived.family', 'arrived', families) }} as after,
        {{ _cdc_family_case('patch', 'arrived.family', 'arrived', families) }} as patch,
        {{ _cdc_family_case('is_snapshot', 'arrived.family', 'arrived', families) }} as is_snapshot,
        {{ _cdc_family_case('column_types', 'arrived.family', 'arrived', families) }} as column_types,
        -- the key a keyless table's row would have (its whole image, canonical), for rows
        -- that may be keyless only: no declared key, no key columns the message names
        -- (has_row_identity), not a document. Computed here, beside row_key, and not in
        -- final: Spark's analyser resolves one level of lambdas a pass, one CTE after the
        -- other, so the deep expressions of the plan belong to one level
        case
            when not {{ _cdc_in_list('arrived.family', _cdc_document_families()) }}
                and arrived.declared_key is null
                and not {{ _cdc_family_case('has_row_identity', 'arrived.family', 'arrived', families) }}
                then {{ _cdc_canonical_json_map(
                    _cdc_json_map(
                        "case when arrived.op = 'd' then "
                        ~ _cdc_family_case('before', 'arrived.family', 'arrived', families)
                        ~ ' else ' ~ _cdc_family_case('after', 'arrived.family', 'arrived', families) ~ ' end'
                    ),
                    folded=true
                ) }}
        end as image_key
    from arrived

),

checked as (

    select
        unpacked.*,
        case
            -- a landing file bronze could not read whole, or an empty one: its one row says
            -- why, starting with its reason code
            when _record_format = 'unreadable_file' then message_value
            when not _is_valid_utf8
                then 'invalid_utf8: the line is not valid UTF-8; its bytes are kept in '
                    || 'bronze_cdc_messages.raw_line_base64'
            -- a tombstone is no change, unless a family reads it (detect_tombstone): a
            -- delete of its key, checked by the family's error_reason below
            when _is_tombstone and family is null then null
            when is_malformed and not _is_tombstone and left(ltrim(message_value), 1) != '{'
                and try_parse_json(message_value) is not null
                then 'not_an_object: the message is JSON text but not an object (starts with '
                    || left(ltrim(message_value), 20) || ')'
            when is_malformed and not _is_tombstone and left(ltrim(message_value), 1) = '{'
                and right(rtrim(message_value), 1) != '}'
                then 'truncated_json: the message ends before its JSON object closes ('
                    || length(message_value) || ' characters, ends with '
                    || right(rtrim(message_value), 20) || ')'
            when is_malformed and not _is_tombstone
                then 'malformed_json: the message is not valid JSON'
            when family is null
                then 'unknown_envelope: no op field and not a transaction or schema-change '
                    || 'event of a known connector'
            else {{ _cdc_family_case('error_reason', 'unpacked.family', 'unpacked', families) }}
        end as error_reason
    from unpacked

),

classified as (

    select
        checked.*,
        case
            when error_reason is not null then 'error'
            when _is_tombstone and family is null then 'tombstone'
            -- a row of a Debezium signal table (var cdc_signal_tables) is a control message
            when kind = 'change' and {{ _cdc_is_signal_table('source_db', 'source_schema', 'source_table') }}
                then 'signal'
            else kind
        end as message_kind
    from checked

),

final as (

    select
        _message_id,
        _cdc_row_index,
        message_kind as _cdc_message_kind,
        error_reason as _cdc_error_reason,
        case when error_reason is null and message_kind != 'tombstone' then family end as _cdc_envelope,
        -- typed here: the hooks of the families compiled (_cdc_present_families) must give
        -- the same columns whichever families those are
        cast(connector as string) as _cdc_connector,
        cast(op as string) as _cdc_op,
        cast(source_db as string) as _cdc_source_db,
        cast(source_schema as string) as _cdc_source_schema,
        cast(source_table as string) as _cdc_source_table,
        {{ cdc_source_id('connector', 'source_db', 'source_schema', 'source_table') }} as _cdc_source_id,
        cast(row_key as string) as _cdc_key,
        -- keyed by its whole row image: a keyless table (int_cdc__keyless_changes); never
        -- a row whose key columns a declared key (declared_key) or the message
        -- (has_row_identity) names (image_key is null for those)
        coalesce(row_key = image_key, false) as _cdc_is_keyless,
        cast(before as string) as _cdc_before,
        cast(after as string) as _cdc_after,
        cast(patch as string) as _cdc_patch,
        cast(
            column_types
            as map<string, struct<type: string, name: string, scale: string, precision: string>>
        ) as _cdc_column_types,
        cast(position as string) as _cdc_position,
        -- the parts are joined by a space, which sorts below every character of a position:
        -- a position that is a prefix of another (a Db2 snapshot read without change_lsn)
        -- sorts first in the sort key too, as it does on its own
        concat_ws(
            ' ',
            position,
            case when is_snapshot then '0' else '1' end,
            arrival,
            -- the row changes of one message in their order (a message of one row change,
            -- index 0, keeps the sort key it always had)
            case when _cdc_row_index > 0 then lpad(cast(_cdc_row_index as string), 6, '0') end
        ) as _cdc_sort_key,
        cast(is_snapshot as boolean) as _cdc_is_snapshot,
        cast({{ _cdc_family_case('snapshot', 'classified.family', 'classified', families) }} as string) as _cdc_snapshot,
        cast({{ _cdc_family_case('source_ts', 'classified.family', 'classified', families) }} as timestamp) as _cdc_source_ts,
        cast({{ _cdc_family_case('emitted_ts', 'classified.family', 'classified', families) }} as timestamp) as _cdc_emitted_ts,
        cast({{ _cdc_family_case('checkpoint_ts', 'classified.family', 'classified', families) }} as timestamp) as _cdc_checkpoint_ts,
        cast({{ _cdc_family_case('transaction_id', 'classified.family', 'classified', families) }} as string) as _cdc_transaction_id,
        -- the value of a control message, for the models that parse it on read
        -- (int_cdc__control_messages): they need not read bronze again
        case
            when message_kind in ('transaction', 'schema_change', 'signal') then message_value
        end as _cdc_control_value,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at,
        _load_id
    from classified

)

select * from final
