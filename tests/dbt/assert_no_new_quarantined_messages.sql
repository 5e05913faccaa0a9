{{ config(severity='warn') }}

-- What this run could not read: the messages a `dbt build` loaded (cdc_test_scope) that
-- went to cdc_quarantine, one row per reason, source and landing file, each with a
-- `message` (how many of the file's messages, and why). A message's source is its table,
-- else its Kafka topic, else its landing file (_cdc_quarantine_source). Warns, and prints a
-- line per source or file it names (_cdc_quarantine_report). It stops the build with an
-- error naming each source and reason when a source reached nothing (`reaches_nothing`:
-- it had quarantined messages and none of its changes of the run reached gold; var
-- cdc_unread_source_severity: warn lowers it), and when at least the share
-- var('cdc_quarantine_error_share') of the run's messages was quarantined (default 1: a run
-- that read none of what it loaded). A compressed landing file bronze could not read (gzip,
-- bzip2 or zstd bytes not named .gz, .bz2 or .zst: _cdc_compressed_extensions) or one none
-- of whose lines is UTF-8 text is named so. A landing file bronze could not read whole
-- (unreadable_file: a truncated or corrupt compressed stream) or an empty one (empty_file)
-- is counted as a file beside the messages, and named. `dbt test` checks every load.

{%- set scope = cdc_test_scope(ref('cdc_quarantine')) %}
{%- set source = _cdc_quarantine_source() %}
{#- the vars are checked on every invocation, whatever it finds -#}
{%- do _cdc_quarantine_error_share() %}
{%- do _cdc_unread_source_severity() %}

{%- set findings -%}
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

messages as (

    -- the run's row changes (a message split into several has a row per _cdc_row_index)
    select
        _message_id,
        _cdc_row_index,
        _cdc_message_kind,
        nullif(_cdc_source_id, '') as source_table,
        _kafka_topic,
        _source_file
    from {{ ref('stg_cdc__messages') }}
    where {{ cdc_scope_predicate(scope) }}

),

quarantined as (

    select
        _message_id,
        _cdc_row_index,
        reason_code,
        _source_file,
        {{ source.kind }} as source_kind,
        {{ source.name }} as source_name
    from {{ ref('cdc_quarantine') }}
    where {{ cdc_scope_predicate(scope) }}

),

unapplied as (

    -- what no stage applied (a partial document is applied: gold keeps it, flagged); a row
    -- without a row index (typed and document stages) stands for its whole message
    select distinct
        _message_id,
        _cdc_row_index
    from quarantined
    where reason_code != 'partial_document'

),

applied_changes as (

    select
        messages._message_id,
        messages.source_table,
        messages._kafka_topic,
        messages._source_file
    from messages
    left anti join unapplied
        on
            messages._message_id = unapplied._message_id
            and (unapplied._cdc_row_index is null or messages._cdc_row_index = unapplied._cdc_row_index)
    where messages._cdc_message_kind = 'change'

),

applied_sources as (

    -- every name of a source (its table, topic and file) whose changes of the run reached gold
    select
        named.source_kind,
        named.source_name,
        count(distinct applied_changes._message_id) as applied_messages
    from applied_changes
        lateral view stack(
            3, 'table', source_table, 'topic', _kafka_topic, 'file', _source_file
        ) named as source_kind, source_name
    where named.source_name is not null
    group by named.source_kind, named.source_name

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
        quarantined.source_kind,
        quarantined.source_name,
        quarantined._source_file,
        count(distinct quarantined._message_id) as messages,
        max(loaded_files.file_messages) as file_messages,
        max(case
            when loaded_files.file_magic like '1F8B%' then 'gzip-compressed'
            when loaded_files.file_magic like '425A68%' then 'bzip2-compressed'
            when loaded_files.file_magic = '28B52FFD' then 'zstd-compressed'
            when loaded_files.file_messages > 0 and loaded_files.file_invalid_lines = loaded_files.file_messages
                then 'not UTF-8 text'
        end) as file_problem
    from quarantined
    left outer join loaded_files
        on quarantined._source_file = loaded_files._source_file
    group by
        quarantined.reason_code,
        quarantined.source_kind,
        quarantined.source_name,
        quarantined._source_file

),

source_reasons as (

    select
        source_kind,
        source_name,
        reason_code,
        sum(messages) as messages,
        collect_set(_source_file) as source_files,
        collect_set(file_problem) as file_problems
    from places
    group by source_kind, source_name, reason_code

),

sources as (

    select
        source_reasons.source_kind,
        source_reasons.source_name,
        -- the reasons, the most frequent first
        array_join(transform(
            array_sort(collect_list(
                named_struct('rank', -source_reasons.messages, 'reason', source_reasons.reason_code)
            )),
            entry -> entry.reason
        ), ', ') as reasons,
        sum(case
            when source_reasons.reason_code not in ('unreadable_file', 'empty_file') then source_reasons.messages
            else 0
        end) as messages,
        sum(case when source_reasons.reason_code = 'unreadable_file' then source_reasons.messages else 0 end)
            as unreadable_files,
        sum(case when source_reasons.reason_code = 'empty_file' then source_reasons.messages else 0 end)
            as empty_files,
        array_sort(array_distinct(flatten(collect_list(source_reasons.source_files)))) as source_files,
        array_sort(array_distinct(flatten(collect_list(source_reasons.file_problems)))) as file_problems,
        count_if(source_reasons.reason_code != 'partial_document') > 0 as has_unapplied
    from source_reasons
    group by source_reasons.source_kind, source_reasons.source_name

),

verdicts as (

    -- a source reached nothing: messages of it went to the quarantine, and none of its
    -- changes of the run reached gold
    select
        sources.*,
        sources.has_unapplied and applied_sources.applied_messages is null as reaches_nothing
    from sources
    left outer join applied_sources
        on
            sources.source_kind = applied_sources.source_kind
            and sources.source_name = applied_sources.source_name

),

source_lines as (

    select
        source_kind,
        source_name,
        reaches_nothing,
        case
            when reaches_nothing and source_kind = 'file'
                then concat(
                        reasons, ': nothing of the file ', source_name, ' reached gold (',
                        concat_ws(
                            '; ',
                            case
                                when messages > 0
                                    then concat(
                                            cast(messages as string),
                                            if(messages = 1, ' message', ' messages'), ' quarantined'
                                        )
                            end,
                            case when unreadable_files > 0 then 'it could not be read whole' end,
                            case when empty_files > 0 then 'it is empty' end,
                            case when size(file_problems) > 0 then concat('it is ', array_join(file_problems, ', ')) end
                        ),
                        ')'
                    )
            when reaches_nothing
                then concat(
                        reasons, ': ',
                        concat_ws(
                            ' and ',
                            case
                                when messages > 0
                                    then concat(cast(messages as string), if(messages = 1, ' message', ' messages'))
                            end,
                            case
                                when unreadable_files > 0
                                    then concat(
                                            cast(unreadable_files as string),
                                            if(unreadable_files = 1, ' unreadable file', ' unreadable files')
                                        )
                            end,
                            case
                                when empty_files > 0
                                    then concat(
                                            cast(empty_files as string),
                                            if(empty_files = 1, ' empty file', ' empty files')
                                        )
                            end
                        ),
                        ' of ', source_name, ', none reached gold (in ',
                        array_join(slice(source_files, 1, 3), ', '),
                        if(
                            size(source_files) > 3,
                            concat(' and ', cast(size(source_files) - 3 as string), ' more files'),
                            ''
                        ),
                        if(size(file_problems) > 0, concat('; ', array_join(file_problems, ', ')), ''),
                        ')'
                    )
        end as source_message
    from verdicts

),

final as (

    select
        places.reason_code,
        places.source_kind,
        places.source_name,
        places._source_file,
        places.messages,
        places.file_messages,
        places.file_problem,
        source_lines.reaches_nothing,
        case
            when places.reason_code = 'unreadable_file'
                then concat(
                        'unreadable_file: the file ', coalesce(places._source_file, '(no file)'),
                        ' could not be read whole, none of its lines loaded (cdc_quarantine.raw_line '
                        || 'says why; a readable copy with a new modification time loads)'
                    )
            when places.reason_code = 'empty_file'
                then concat(
                        'empty_file: the file ', coalesce(places._source_file, '(no file)'),
                        ' is empty (no bytes, or no records; a version of it with bytes, a new '
                        || 'modification time, loads)'
                    )
            else concat(
                    places.reason_code, ': ',
                    cast(places.messages as string), if(places.messages = 1, ' message', ' messages'),
                    coalesce(concat(' of ', cast(places.file_messages as string)), ''),
                    ' in ', coalesce(places._source_file, '(no file)'),
                    if(places.source_kind = 'file', '', concat(' (', places.source_name, ')')),
                    coalesce(
                        concat(
                            ': the file is ', places.file_problem,
                            ' (bronze decompresses only files named .{{ _cdc_compressed_extensions() | join(", .") }}, '
                            || 'land it decompressed or so named; the bytes are kept in '
                            || 'bronze_cdc_messages.raw_line_base64)'
                        ),
                        ''
                    )
                )
        end as message,
        source_lines.source_message,
        run_totals.run_messages,
        run_totals.run_unreadable_files,
        run_totals.run_quarantined
    from places
    inner join source_lines
        on
            places.source_kind = source_lines.source_kind
            and places.source_name = source_lines.source_name
    cross join run_totals

)

select * from final
order by reaches_nothing desc, source_name asc, reason_code asc, _source_file asc
{%- endset %}

{#- a `dbt build` or `dbt test` runs the query once, prints what it found and returns its
    rows (or its error); `dbt compile` and the docs show the query -#}
{%- if scope.kind == 'nothing' or (execute and flags.WHICH in ['build', 'test', 'retry']) %}
    {{ _cdc_quarantine_report(findings if scope.kind != 'nothing' else none) }}
{%- else %}
    {{ findings }}
{%- endif %}
