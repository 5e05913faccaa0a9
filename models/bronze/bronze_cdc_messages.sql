{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        full_refresh=false,
        post_hook="{{ cdc_release_landing_views() }}",
    )
}}

{#-
    Bronze is the only copy of messages whose landing files may since have been rotated
    away, so `--full-refresh` does not rebuild it (full_refresh=false): silver and gold are
    rebuilt from it instead. To reload bronze from the landing files on purpose, drop the
    table first (see README, "Rebuilding").
-#}

{%- set new_files = cdc_new_landing_files(this if is_incremental() else none) -%}
{#-
    Compressed files (cdc_compressed_extensions) are read line by line by the text source,
    which decompresses them; the others whole, by binaryFile, which reads the content of
    every file its view lists: the new ones only.
-#}
{%- set compressed_files = cdc_compressed_landing_files(new_files) -%}
{%- set plain_files = none if new_files is none else new_files | reject('in', compressed_files) | list -%}
{%- set files_relation = cdc_landing_files_subset_relation(plain_files) or cdc_landing_files_relation() -%}
{%- set lines_relation = cdc_landing_lines_relation(compressed_files) -%}
{%- if new_files is not none and new_files | length == 0 %}
{{ cdc_no_new_input() }}
{%- endif %}

with

landing_files as (

    select
        path as source_file,
        modificationtime as source_file_modified_at,
        content,
        is_valid_utf8(cast(content as string)) as is_valid_file,
        {{ cdc_sink_file_coordinates('path') }}
    from {{ files_relation }}
    where {{ cdc_in_list('path', plain_files) }}
        and not {{ _cdc_is_compressed_path_sql('path') }}

),

file_lines as (

    -- A file that is not valid UTF-8 is split as ISO-8859-1, which maps every byte to one
    -- character, so each line's original bytes can be recovered exactly below.
    select
        landing_files.source_file,
        landing_files.source_file_modified_at,
        landing_files.is_valid_file,
        landing_files.file_topic,
        landing_files.file_partition,
        landing_files.file_start_offset,
        exploded.line_position + 1 as source_line,
        {{ cdc_without_trailing_cr('exploded.line_text') }} as line_text
    from landing_files
        lateral view posexplode(split(
            case
                when landing_files.is_valid_file then cast(landing_files.content as string)
                else decode(landing_files.content, 'ISO-8859-1')
            end,
            '\n'
        )) exploded as line_position, line_text

),

line_bytes as (

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
    from file_lines

),

plain_messages as (

    -- blank lines separate nothing and carry nothing: they are not messages
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
        end as raw_line_base64
    from line_bytes
    where startswith(line_text, '{') or trim(line_text) != ''

),
{%- if lines_relation %}

compressed_files as (

    select
        path as source_file,
        modificationtime as source_file_modified_at,
        {{ cdc_sink_file_coordinates('path') }}
    from {{ cdc_landing_files_relation() }}
    where {{ cdc_in_list('path', compressed_files) }}

),

compressed_lines as (

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

compressed_file_lines as (

    select
        compressed_lines.source_file,
        row_number() over (
            partition by compressed_lines.source_file
            order by compressed_lines.split_start, compressed_lines.scan_position
        ) as source_line,
        {{ cdc_without_trailing_cr('compressed_lines.line_text') }} as line_text
    from compressed_lines

),

compressed_messages as (

    select
        compressed_files.source_file,
        compressed_files.source_file_modified_at,
        compressed_file_lines.source_line,
        compressed_files.file_topic,
        compressed_files.file_partition,
        compressed_files.file_start_offset,
        is_valid_utf8(compressed_file_lines.line_text) as is_valid_utf8,
        case
            when is_valid_utf8(compressed_file_lines.line_text) then compressed_file_lines.line_text
            else make_valid_utf8(compressed_file_lines.line_text)
        end as raw_line,
        case
            when not is_valid_utf8(compressed_file_lines.line_text)
                then base64(cast(compressed_file_lines.line_text as binary))
        end as raw_line_base64
    from compressed_file_lines
        inner join compressed_files
            on compressed_file_lines.source_file = compressed_files.source_file
    where
        startswith(compressed_file_lines.line_text, '{')
        or trim(compressed_file_lines.line_text) != ''

),
{%- endif %}

messages as (

    select
        source_file,
        source_file_modified_at,
        source_line,
        file_topic,
        file_partition,
        file_start_offset,
        is_valid_utf8,
        raw_line,
        raw_line_base64
    from plain_messages
    {%- if lines_relation %}
    union all
    select
        source_file,
        source_file_modified_at,
        source_line,
        file_topic,
        file_partition,
        file_start_offset,
        is_valid_utf8,
        raw_line,
        raw_line_base64
    from compressed_messages
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
        md5(concat_ws(
            '|', source_file, cast(source_file_modified_at as string), cast(source_line as string)
        )) as _message_id,
        raw_line,
        raw_line_base64,
        case when is_kcat_record then kcat.key end as message_key,
        case
            when is_kcat_record then kcat.payload
            when trim(raw_line) = 'null' then null
            else raw_line
        end as message_value,
        case
            when is_kcat_record then kcat.payload is null
            else trim(raw_line) = 'null'
        end as _is_tombstone,
        case when is_kcat_record then 'kcat' else 'value_line' end as _record_format,
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
