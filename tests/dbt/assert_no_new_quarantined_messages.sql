{{ config(severity='warn') }}

-- What this run could not read: the messages a `dbt build` loaded (cdc_test_scope) that
-- went to cdc_quarantine, one row per reason and landing file, each with a `message`
-- (how many of the file's messages, and why). Warns; stops the build with an error that
-- names every reason and file when at least the share var('cdc_quarantine_error_share')
-- of the run's messages was quarantined (default 1: a run that read none of what it
-- loaded). A compressed landing file bronze could not read (gzip, bzip2 or zstd bytes not
-- named .gz, .bz2 or .zst: _cdc_compressed_extensions) or one none of
-- whose lines is UTF-8 text is named so. A landing file bronze could not read whole
-- (unreadable_file: a truncated or corrupt compressed stream) or an empty one (empty_file)
-- is counted as a file beside the messages, and named; a run whose every file was unreadable is an error, as a run of
-- only unreadable messages is.
-- `dbt test` checks every load.

{%- set scope = cdc_test_scope(ref('cdc_quarantine')) %}
{%- set error_share = _cdc_quarantine_error_share() %}

with

loaded_files as (

    select
        _source_file,
        count_if(_record_format != 'unreadable_file') as file_messages,
        count_if(_record_format = 'unreadable_file') as file_unreadable,
        count_if(not _is_valid_utf8) as file_invalid_lines,
        -- the first bytes of the file: compressed files are named by their magic number
        max(case
            when _source_line = 1
                then hex(substr(coalesce(unbase64(raw_line_base64), cast(raw_line as binary)), 1, 4))
        end) as file_magic
    from {{ ref('bronze_cdc_messages') }}
    where {{ cdc_scope_predicate(scope) }}
    group by _source_file

),

quarantined as (

    select
        _message_id,
        reason_code,
        _source_file
    from {{ ref('cdc_quarantine') }}
    where {{ cdc_scope_predicate(scope) }}

),

run_totals as (

    select
        (select coalesce(sum(file_messages), 0) from loaded_files) as run_messages,
        (select count_if(file_unreadable > 0) from loaded_files) as run_unreadable_files,
        (select count(distinct _message_id) from quarantined) as run_quarantined

),

places as (

    select
        quarantined.reason_code,
        quarantined._source_file,
        count(distinct quarantined._message_id) as messages,
        max(loaded_files.file_messages) as file_messages,
        max(case
            when loaded_files.file_magic like '1F8B%' then 'gzip-compressed'
            when loaded_files.file_magic like '425A68%' then 'bzip2-compressed'
            when loaded_files.file_magic = '28B52FFD' then 'zstd-compressed'
            when loaded_files.file_invalid_lines = loaded_files.file_messages then 'not UTF-8 text'
        end) as file_problem
    from quarantined
    left outer join loaded_files
        on quarantined._source_file = loaded_files._source_file
    group by quarantined.reason_code, quarantined._source_file

),

described as (

    select
        reason_code,
        _source_file,
        messages,
        file_messages,
        file_problem,
        case
            when reason_code = 'unreadable_file'
                then concat(
                        'the file ', coalesce(_source_file, '(no file)'), ' could not be read whole, '
                        || 'quarantined as unreadable_file: none of its lines loaded (cdc_quarantine.raw_line '
                        || 'says why; a readable copy with a new modification time loads)'
                    )
            when reason_code = 'empty_file'
                then concat(
                        'the file ', coalesce(_source_file, '(no file)'), ' is empty (0 bytes), '
                        || 'quarantined as empty_file (a version of it with bytes, a new '
                        || 'modification time, loads)'
                    )
            else concat(
                    cast(messages as string), if(messages = 1, ' message', ' messages'),
                    coalesce(concat(' of ', cast(file_messages as string)), ''),
                    ' in ', coalesce(_source_file, '(no file)'), ' quarantined as ', reason_code,
                    coalesce(
                        concat(
                            ': the file is ', file_problem,
                            ' (bronze decompresses only files named .{{ _cdc_compressed_extensions() | join(", .") }}, '
                            || 'land it decompressed or so named; the bytes are kept in '
                            || 'bronze_cdc_messages.raw_line_base64)'
                        ),
                        ''
                    )
                )
        end as message
    from places

),

run_message as (

    select
        concat(
            'this run quarantined ',
            cast(max(run_totals.run_quarantined - run_totals.run_unreadable_files) as string),
            ' of the ', cast(max(run_totals.run_messages) as string), ' messages it loaded and ',
            cast(max(run_totals.run_unreadable_files) as string),
            ' landing files it could not read (',
            'var cdc_quarantine_error_share: {{ error_share }}; cdc_quarantine_summary says why '
            || 'and what to do): ',
            array_join(slice(array_sort(collect_list(described.message)), 1, 20), '; '),
            if(count(*) > 20, '; ...', '')
        ) as run_text
    from described
    cross join run_totals

),

final as (

    select
        described.reason_code,
        described._source_file,
        described.messages,
        described.file_messages,
        described.file_problem,
        described.message
    from described
    cross join run_totals
    cross join run_message
    -- at or above the share, the whole run is an error: raise_error stops the query with
    -- the run's message (a filter, so that dbt's count of the rows cannot prune it away)
    where
        case
            when
                run_totals.run_messages + run_totals.run_unreadable_files > 0
                and run_totals.run_quarantined
                >= {{ error_share }} * (run_totals.run_messages + run_totals.run_unreadable_files)
                then cast(raise_error(run_message.run_text) as boolean)
            else true
        end

)

select * from final
