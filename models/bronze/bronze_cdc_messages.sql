{{
    config(
        materialized='cdc_incremental',
        incremental_strategy='append',
        full_refresh=false,
        cdc_summary={'table_changes': _cdc_announces_table_changes()},
        post_hook=["{{ _cdc_record_loaded_files() }}", "{{ _cdc_release_landing_views() }}"],
    )
}}

{#-
    Bronze is the only copy of messages whose landing files may since have been rotated
    away, so `--full-refresh` does not rebuild it (full_refresh=false): silver and gold are
    rebuilt from it instead. To reload bronze from the landing files on purpose, drop the
    table first (see docs/operations.md, "Rebuilding").
-#}

{%- set new_files = _cdc_unloaded_landing_files(this if cdc_is_incremental() else none) -%}
{#-
    Every file is read line by line by Spark's text source (_cdc_landing_lines_relation),
    which streams it (a file is never held whole) and decompresses .gz, .bz2, .deflate
    and .zst files (_cdc_compressed_extensions); only files of an extension its codecs
    would misread (_cdc_whole_read_extensions: .lz4, .snappy) are read whole, by
    binaryFile, and kept as they are.
-#}
{%- set files = _cdc_landing_files_to_read(new_files) -%}
{#-
    A compressed file whose codec fails before its end would fail Spark's whole query: such
    files are found first (_cdc_unreadable_landing_files), not read, and each lands as one
    row of its own (`_record_format` 'unreadable_file') that silver quarantines. None of
    their lines is kept; a readable version of the file (a new modification time) loads.
    A zero-byte file lands so too (`empty_file`): recorded, it is not listed again.
-#}
{%- set unreadable_files = _cdc_unreadable_landing_files(files) -%}
{%- set unreadable_paths = unreadable_files | map(attribute='path') | list -%}
{%- set files = files | reject('in', unreadable_paths) | list -%}
{#-
    Files Spark's listing skips (a name starting with `_` or `.`, such as a Kafka Connect
    sink's files of `__debezium-heartbeat.<server>`) are read whole by a Python UDF
    (_cdc_unlisted_landing_files), decompressed by extension.
-#}
{%- set unlisted_files = _cdc_unlisted_landing_files(files) -%}
{#-
    Avro and Parquet files (_cdc_record_extensions: what Kafka Connect's sinks write with
    format.class AvroFormat or ParquetFormat) are record containers: each record is a
    message, decoded by the reader of `spark.jars` (_cdc_landing_record_texts).
-#}
{%- set record_files = _cdc_record_files_among(files) -%}
{%- set whole_files = _cdc_whole_read_among(
    files | reject('in', unlisted_files) | reject('in', record_files) | list
) -%}
{%- set lines_relation = _cdc_landing_lines_relation(
    files | reject('in', whole_files) | reject('in', unlisted_files) | reject('in', record_files) | list
) -%}
{%- set listed_record_files = record_files | reject('in', unlisted_files) | list -%}
{%- set binary_relation = none -%}
{%- if whole_files or listed_record_files -%}
    {#- one view over the files read whole by binaryFile, whatever reads their bytes -#}
    {%- set binary_relation = _cdc_landing_files_subset_relation(whole_files + listed_record_files)
          or _cdc_landing_files_relation() -%}
{%- endif -%}
{%- set unlisted_relation = _cdc_unlisted_landing_contents_relation(unlisted_files) -%}
{%- set unlisted_record_files = record_files | select('in', unlisted_files) | list -%}
{%- set unlisted_line_files = unlisted_files | reject('in', record_files) | list -%}
{%- set whole_sources = [] -%}
{%- if whole_files -%}
    {%- do whole_sources.append({'relation': binary_relation, 'paths': whole_files}) -%}
{%- endif -%}
{%- if unlisted_line_files -%}
    {%- do whole_sources.append({'relation': unlisted_relation, 'paths': unlisted_line_files}) -%}
{%- endif -%}
{%- set record_sources = [] -%}
{%- if listed_record_files -%}
    {%- do record_sources.append({'relation': binary_relation, 'paths': listed_record_files}) -%}
{%- endif -%}
{%- if unlisted_record_files -%}
    {%- do record_sources.append({'relation': unlisted_relation, 'paths': unlisted_record_files}) -%}
{%- endif -%}
{#-
    Kafka, read directly when vars name a broker (_cdc_kafka_settings): per partition, the
    offsets after the last one bronze holds up to the end offsets fixed as the run starts.
-#}
{%- set kafka = _cdc_kafka_settings() if execute else none -%}
{%- set kafka_relation = none -%}
{%- if kafka is not none -%}
    {%- set kafka_relation = _cdc_kafka_records_relation(kafka, _cdc_kafka_offset_ranges(
        _cdc_kafka_partitions(kafka), _cdc_kafka_held_offsets(this if cdc_is_incremental() else none)
    )) -%}
{%- endif -%}
{%- set parts = [] %}
{%- if lines_relation %}{% do parts.append('line_messages') %}{% endif %}
{%- if kafka_relation %}{% do parts.append('kafka_messages') %}{% endif %}
{%- if whole_sources %}{% do parts.append('whole_messages') %}{% endif %}
{%- if record_sources %}{% do parts.append('record_messages') %}{% endif %}
{%- if unreadable_files %}{% do parts.append('unreadable_file_messages') %}{% endif %}
{#- no new landing file (none: not incremental, every file is read) nor Kafka record: nothing to do -#}
{{ cdc_skip_unless_new_input(new_files is none or new_files | length > 0 or kafka_relation is not none) }}

with
{%- if lines_relation %}

landing_lines as (

    -- the text source names a file as a URI (`file:///...`, `%XX` escapes; a '+' stays
    -- as it is), binaryFile as a Hadoop path (`file:/...`): the listing's name is kept.
    -- A file's lines are in the order of its splits, and within one in their scan order.
    select
        regexp_replace(
            url_decode(replace(input_file_name(), '+', '%2B')), '^file:///', 'file:/'
        ) as source_file,
        input_file_block_start() as split_start,
        monotonically_increasing_id() as scan_position,
        value as line_text
    from {{ lines_relation }}

),

numbered_lines as (

    select
        landing_lines.source_file,
        row_number() over (
            partition by landing_lines.source_file
            order by landing_lines.split_start, landing_lines.scan_position
        ) as source_line,
        {{ _cdc_without_trailing_cr('landing_lines.line_text') }} as line_text
    from landing_lines

),

listed_files as (

    select
        path as source_file,
        modificationtime as source_file_modified_at,
        {{ _cdc_sink_file_coordinates('path') }}
    from {{ _cdc_landing_listing_relation() }}
    where not is_unlisted

),

line_messages as (

    -- blank lines separate nothing and carry nothing: they are not messages
    select
        listed_files.source_file,
        listed_files.source_file_modified_at,
        numbered_lines.source_line,
        listed_files.file_topic,
        listed_files.file_partition,
        listed_files.file_start_offset,
        is_valid_utf8(numbered_lines.line_text) as is_valid_utf8,
        case
            when is_valid_utf8(numbered_lines.line_text) then numbered_lines.line_text
            else make_valid_utf8(numbered_lines.line_text)
        end as raw_line,
        case
            when not is_valid_utf8(numbered_lines.line_text)
                then base64(cast(numbered_lines.line_text as binary))
        end as raw_line_base64,
        false as is_unreadable_file,
        false as is_kafka_read
    from numbered_lines
        inner join listed_files
            on numbered_lines.source_file = listed_files.source_file
    where
        startswith(numbered_lines.line_text, '{')
        or trim(numbered_lines.line_text) != ''

),
{%- endif %}
{%- if whole_sources %}

whole_files as (

    select
        file_bytes.source_file,
        file_bytes.source_file_modified_at,
        file_bytes.content,
        is_valid_utf8(cast(file_bytes.content as string)) as is_valid_file,
        file_bytes.file_topic,
        file_bytes.file_partition,
        file_bytes.file_start_offset
    from ({{ _cdc_landing_file_bytes(whole_sources) }}) as file_bytes

),

whole_file_lines as (

    -- A file that is not valid UTF-8 is split as ISO-8859-1, which maps every byte to one
    -- character, so each line's original bytes can be recovered exactly below.
    select
        whole_files.source_file,
        whole_files.source_file_modified_at,
        whole_files.is_valid_file,
        whole_files.file_topic,
        whole_files.file_partition,
        whole_files.file_start_offset,
        exploded.line_position + 1 as source_line,
        {{ _cdc_without_trailing_cr('exploded.line_text') }} as line_text
    from whole_files
        lateral view posexplode(split(
            case
                when whole_files.is_valid_file then cast(whole_files.content as string)
                else decode(whole_files.content, 'ISO-8859-1')
            end,
            '\n'
        )) exploded as line_position, line_text

),

whole_line_bytes as (

    select
        source_file,
        source_file_modified_at,
        source_line,
        file_topic,
        file_partition,
        file_start_offset,
        is_valid_file,
        case
            when is_valid_file then line_text
            else cast(encode(line_text, 'ISO-8859-1') as string)
        end as line_text
    from whole_file_lines

),

whole_messages as (

    select
        source_file,
        source_file_modified_at,
        source_line,
        file_topic,
        file_partition,
        file_start_offset,
        -- the lines of a valid UTF-8 file are valid: only other files are checked by line
        is_valid_file or is_valid_utf8(line_text) as is_valid_utf8,
        case when is_valid_file then line_text else make_valid_utf8(line_text) end as raw_line,
        case
            when not is_valid_file and not is_valid_utf8(line_text)
                then base64(cast(line_text as binary))
        end as raw_line_base64,
        false as is_unreadable_file,
        false as is_kafka_read
    from whole_line_bytes
    where startswith(line_text, '{') or trim(line_text) != ''

),
{%- endif %}
{%- if record_sources %}

record_texts as (

    -- each file decoded once, whole: its records as JSON lines, or one line saying why not
    select
        file_bytes.source_file,
        file_bytes.source_file_modified_at,
        file_bytes.file_length,
        file_bytes.file_topic,
        file_bytes.file_partition,
        file_bytes.file_start_offset,
        {{ _cdc_record_container('file_bytes.source_file') }} as container,
        {{ _cdc_landing_record_texts('file_bytes.content', 'file_bytes.source_file') }}
            as records_text
    from ({{ _cdc_landing_file_bytes(record_sources) }}) as file_bytes

),

record_lines as (

    select
        record_texts.source_file,
        record_texts.source_file_modified_at,
        record_texts.file_length,
        record_texts.file_topic,
        record_texts.file_partition,
        record_texts.file_start_offset,
        record_texts.container,
        exploded.record_position + 1 as source_line,
        exploded.record_text
    from record_texts
        lateral view posexplode(
            case
                when startswith(record_texts.records_text, '!') then array(record_texts.records_text)
                else split(record_texts.records_text, '\n')
            end
        ) exploded as record_position, record_text

),

record_messages as (

    -- a record at its index in the file (from 1: its offset is the file's start offset plus
    -- the index, less one); a file that cannot be read whole, or holds no record, is one row
    -- at line 0 saying why, and none of its records is kept
    select
        source_file,
        source_file_modified_at,
        case when startswith(record_text, '!') then 0 else source_line end as source_line,
        file_topic,
        file_partition,
        case when not startswith(record_text, '!') then file_start_offset end as file_start_offset,
        true as is_valid_utf8,
        case
            when startswith(record_text, '!empty') then concat(
                'empty_file: the ', container, ' file holds no records (',
                cast(file_length as string), ' bytes, modified ',
                cast(source_file_modified_at as string),
                '): a version of it with records (a new modification time) loads'
            )
            when startswith(record_text, '!') then concat(
                'unreadable_file: the ', container, ' file could not be read whole (',
                split_part(record_text, '\t', 3), '); ',
                cast(file_length as string), ' bytes, modified ',
                cast(source_file_modified_at as string), '; ',
                split_part(record_text, '\t', 2),
                ' records were read before the failure and none is kept: the file loads whole '
                || 'once a readable version of it (a new modification time) lands'
            )
            else record_text
        end as raw_line,
        cast(null as string) as raw_line_base64,
        startswith(record_text, '!') as is_unreadable_file,
        false as is_kafka_read
    from record_lines

),
{%- endif %}
{%- if unreadable_files %}

file_reasons as (

    select * from values
    {%- for unreadable in unreadable_files %}
        (
            '{{ _cdc_escape_string(unreadable.path) }}',
            '{{ unreadable.reason }}',
            {{ unreadable.lines_read }},
            {{ "'" ~ _cdc_escape_string(unreadable.error) ~ "'" if unreadable.error else 'cast(null as string)' }}
        ){{ ',' if not loop.last }}
    {%- endfor %}
        as file_reasons (source_file, reason_code, lines_read, error)

),

unreadable_listing as (

    select
        path,
        modificationtime,
        length,
        {{ _cdc_sink_file_coordinates('path') }}
    from {{ _cdc_landing_listing_relation() }}
    where {{ _cdc_in_list('path', unreadable_paths) }}

),

unreadable_file_messages as (

    -- one row per file that holds no message to read, at line 0: its reason code, what the
    -- file is and why (a zero-byte file, or a codec that failed before the file's end)
    select
        unreadable_listing.path as source_file,
        unreadable_listing.modificationtime as source_file_modified_at,
        0 as source_line,
        unreadable_listing.file_topic,
        unreadable_listing.file_partition,
        cast(null as bigint) as file_start_offset,
        true as is_valid_utf8,
        case
            when file_reasons.reason_code = 'empty_file' then concat(
                'empty_file: the file has no bytes (0 bytes, modified ',
                cast(unreadable_listing.modificationtime as string),
                '): a version of it with bytes (a new modification time) loads'
            )
            when file_reasons.error is not null then concat(
                'unreadable_file: the file could not be read whole (', file_reasons.error, '); ',
                cast(unreadable_listing.length as string), ' bytes, modified ',
                cast(unreadable_listing.modificationtime as string),
                '; none of its lines is kept: the file loads whole once a readable version of '
                || 'it (a new modification time) lands'
            )
            else concat(
                'unreadable_file: the ',
                lower(regexp_extract(unreadable_listing.path, '[.]([^./]+)$', 1)),
                ' codec failed before the end of the file (a truncated or corrupt stream, or a '
                || 'file that could not be opened); ',
                cast(unreadable_listing.length as string), ' bytes, modified ',
                cast(unreadable_listing.modificationtime as string), '; ',
                cast(file_reasons.lines_read as string),
                ' lines were read before the failure and none is kept: the file loads whole '
                || 'once a readable version of it (a new modification time) lands'
            )
        end as raw_line,
        cast(null as string) as raw_line_base64,
        true as is_unreadable_file,
        false as is_kafka_read
    from unreadable_listing
        inner join file_reasons
            on unreadable_listing.path = file_reasons.source_file

),
{%- endif %}
{%- if kafka_relation %}

kafka_records as (

    select
        topic,
        partition,
        offset,
        timestamp,
        timestamptype,
        headers,
        cast(key as string) as key_text,
        cast(value as string) as value_text,
        is_valid_utf8(cast(value as string)) as is_valid_value
    from {{ kafka_relation }}

),

kafka_messages as (

    -- a record as kcat -J prints it (so bronze reads it as it reads kcat's records), its
    -- headers as kcat's [name, value, ...]; a value that is not valid UTF-8 is kept whole
    -- in raw_line_base64. Its "file" is the partition: `kafka:<topic>/<partition>`.
    select
        concat('kafka:', topic, '/', cast(partition as string)) as source_file,
        cast(null as timestamp) as source_file_modified_at,
        0 as source_line,
        cast(null as string) as file_topic,
        cast(null as int) as file_partition,
        cast(null as bigint) as file_start_offset,
        coalesce(is_valid_value, true) as is_valid_utf8,
        to_json(named_struct(
            'topic', topic,
            'partition', partition,
            'offset', offset,
            'tstype', case timestamptype when 0 then 'create' when 1 then 'logappend' end,
            'ts', unix_millis(timestamp),
            'headers', flatten(transform(
                coalesce(headers, array()), header -> array(header.key, cast(header.value as string))
            )),
            'key', make_valid_utf8(key_text),
            'payload', case when is_valid_value then value_text else make_valid_utf8(value_text) end
        )) as raw_line,
        case when not is_valid_value then base64(cast(value_text as binary)) end as raw_line_base64,
        false as is_unreadable_file,
        true as is_kafka_read
    from kafka_records

),
{%- endif %}

messages as (
    {%- for part in parts %}

    select
        source_file,
        source_file_modified_at,
        source_line,
        file_topic,
        file_partition,
        file_start_offset,
        is_valid_utf8,
        raw_line,
        raw_line_base64,
        is_unreadable_file,
        is_kafka_read
    from {{ part }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
    {%- if not parts %}

        -- nothing to read (no new landing file, or at parse time): no rows, the same columns
        select
            cast(null as string) as source_file,
            cast(null as timestamp) as source_file_modified_at,
            cast(null as int) as source_line,
            cast(null as string) as file_topic,
            cast(null as int) as file_partition,
            cast(null as bigint) as file_start_offset,
            cast(null as boolean) as is_valid_utf8,
            cast(null as string) as raw_line,
            cast(null as string) as raw_line_base64,
            cast(null as boolean) as is_unreadable_file,
            cast(null as boolean) as is_kafka_read
        where false
    {%- endif %}

),

kcat_records as (

    select
        *,
        -- kcat -J writes "topic" first: other lines skip the second JSON parse (the
        -- whitespace-stripping test runs only for lines not starting with '{"')
        case
            when startswith(raw_line, '{"topic":')
                or (
                    not startswith(raw_line, '{"')
                    and startswith(regexp_replace(left(raw_line, 24), '\\s', ''), '{"topic":')
                ) then from_json(
                    raw_line,
                    'struct<topic: string, partition: string, offset: string, tstype: string,
                    ts: string, key: string, payload: string>'
                )
        end as kcat
    from messages

),

record_kinds as (

    select
        *,
        kcat.topic is not null
        and try_cast(kcat.partition as int) is not null
        and try_cast(kcat.offset as bigint) is not null as is_kcat_record
    from kcat_records

),

final as (

    select
        case
            when is_kafka_read then md5(concat_ws('|', source_file, kcat.offset))
            else md5(concat_ws(
                    '|',
                    source_file,
                    cast(source_file_modified_at as string),
                    cast(source_line as string)
                ))
        end as _message_id,
        raw_line,
        raw_line_base64,
        case when is_kcat_record then kcat.key end as message_key,
        -- a value that is JSON null is a tombstone too: Kafka Connect's JsonConverter writes
        -- the text `null` for a null value that has a schema (ExtractNewRecordState's delete
        -- in `tombstone` mode), where a tombstone proper has no bytes
        case
            when is_kcat_record and trim(kcat.payload) = 'null' then null
            when is_kcat_record then kcat.payload
            when is_unreadable_file then raw_line
            when trim(raw_line) = 'null' then null
            else raw_line
        end as message_value,
        case
            when is_kcat_record then coalesce(trim(kcat.payload) = 'null', true)
            when is_unreadable_file then false
            else trim(raw_line) = 'null'
        end as _is_tombstone,
        case
            when is_unreadable_file then 'unreadable_file'
            when is_kafka_read then 'kafka'
            when is_kcat_record then 'kcat'
            -- a record of an Avro or Parquet file: its container
            else coalesce({{ _cdc_record_container('source_file') }}, 'value_line')
        end as _record_format,
        is_valid_utf8 as _is_valid_utf8,
        case when is_kcat_record then kcat.topic else file_topic end as _kafka_topic,
        case
            when is_kcat_record then try_cast(kcat.partition as int) else file_partition
        end as _kafka_partition,
        case
            when is_kcat_record then try_cast(kcat.offset as bigint)
            else file_start_offset + source_line - 1
        end as _kafka_offset,
        case
            when is_kcat_record then timestamp_millis(try_cast(kcat.ts as bigint))
        end as _kafka_timestamp,
        source_file as _source_file,
        source_line as _source_line,
        source_file_modified_at as _source_file_modified_at,
        current_timestamp() as _loaded_at,
        '{{ invocation_id }}' as _load_id
    from record_kinds

)

select * from final
