{{
    config(
        materialized='cdc_incremental',
        incremental_strategy='append',
        cdc_input_kinds=['keyless', 'truncate'],
    )
}}

{%- set watermark = cdc_new_input_since() %}
{#- what this model resolves: keyless rows, and (incremental) truncates of their tables.
    Without a new keyless row or truncate (stg_cdc__messages records what its writes held:
    cdc_input_kinds) a run has nothing to do: no query, no Spark job. With a truncate only,
    one probe says whether it truncated a keyless table -#}
{%- set skip_run = cdc_skip_unless_new_input() %}
{%- if not skip_run and cdc_is_incremental() %}
    {%- set truncates_of_keyless_tables -%}
        _cdc_op = 't' and _cdc_source_id in (select _cdc_source_id from {{ this }})
    {%- endset %}
    {%- set skip_run = cdc_skip_unless_new_input(
            ref('stg_cdc__messages'),
            "_cdc_message_kind = 'change' and (_cdc_is_keyless or ("
                ~ truncates_of_keyless_tables ~ "))",
            since=watermark) %}
{%- endif %}
{{ skip_run }}

-- The rows of keyless tables (keyed by their whole row image, _cdc_is_keyless) as a
-- multiset: identical rows count as many times as they exist. Each row change is a count
-- change of a row content (_cdc_row_content): an insert or snapshot read adds one copy of
-- its after image, an update retires one copy of its before image and adds one of its
-- after image, a delete retires one copy; a truncate starts the table's counts again. A
-- count never drops below zero (a change of a row captured before its insert). Copies of
-- one change (redelivery, replayed files) count once: a change is identified by its
-- position, row index, op and images; a snapshot read, whose position all reads of one
-- snapshot share, also by its Kafka offset (kcat records, Kafka Connect sink file names),
-- or else by its place among identical reads in one load of its landing file. (Rows of
-- one Canal fetch share a position: identical rows changed in one second by different
-- messages count once; docs/architecture.md, Keys.) A content touched by a run is
-- resolved again from its whole history and
-- written as its final copies: copy n is a row keyed by the content with "_cdc_copy":"n"
-- (copy 1 keeps the content itself as its key); copies 1..count are live, copies above
-- the count that an earlier resolution wrote are deletes. The resolution stamp appended
-- to _cdc_sort_key makes the newest resolution win downstream.

with

keyless_messages as (

    select
        *,
        -- the delete half of an update the connector split in two (Canal, DataWorks)
        -- already retires the before image
        _cdc_op = 'u' and max(cast(_cdc_op = 'd' as int)) over (
            partition by _message_id, _cdc_before
        ) = 1 as _retired_by_split
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind = 'change'
        and _cdc_is_keyless
    {%- if skip_run %}
        and false
    {%- endif %}

),

truncates as (

    select
        _cdc_source_id,
        _cdc_sort_key,
        _loaded_at
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind = 'change'
        and _cdc_op = 't'

),

row_deltas as (

    select
        _cdc_key as row_content,
        _cdc_after as row_image,
        1 as copy_delta,
        keyless_messages.*
    from keyless_messages
    where _cdc_op in ('c', 'r', 'u')
        and _cdc_after is not null

    union all

    select
        case
            when _cdc_op = 'd' then _cdc_key
            else {{ _cdc_canonical_json_map(_cdc_json_map('_cdc_before'), folded=true) }}
        end as row_content,
        _cdc_before as row_image,
        -1 as copy_delta,
        keyless_messages.*
    from keyless_messages
    where (_cdc_op = 'd' or (_cdc_op = 'u' and not _retired_by_split))
        and _cdc_before is not null

),

touched as (

    -- the row contents this run resolves: those with a new change, and every content of
    -- a table with a new truncate (all of them on a full refresh)
    select distinct
        _cdc_source_id,
        row_content
    from row_deltas
    {%- if cdc_is_incremental() %}
    where _loaded_at > {{ watermark }}

    union

    select distinct
        row_deltas._cdc_source_id,
        row_deltas.row_content
    from row_deltas
    left semi join truncates
        on
            row_deltas._cdc_source_id = truncates._cdc_source_id
            and truncates._loaded_at > {{ watermark }}
    {%- endif %}

),

history as (

    select row_deltas.*
    from row_deltas
    left semi join touched
        on
            row_deltas._cdc_source_id = touched._cdc_source_id
            and row_deltas.row_content = touched.row_content

),

resolution as (

    select
        max(_loaded_at) as resolved_loaded_at,
        date_format(max(_loaded_at), 'yyyyMMddHHmmssSSSSSS') as resolution_stamp
    from (
        select _loaded_at from keyless_messages
        {%- if cdc_is_incremental() %}
        where _loaded_at > {{ watermark }}
        {%- endif %}
        union all
        select _loaded_at from truncates
        {%- if cdc_is_incremental() %}
        where _loaded_at > {{ watermark }}
        {%- endif %}
    ) as batch

),

stored_copies as (

    -- the highest copy an earlier run wrote for each content resolved again
    {%- if cdc_is_incremental() %}
    select
        stored._cdc_source_id,
        stored._cdc_row_content as row_content,
        max(stored._cdc_copy) as stored_copies
    from {{ this }} as stored
    left semi join touched
        on
            stored._cdc_source_id = touched._cdc_source_id
            and stored._cdc_row_content = touched.row_content
    group by stored._cdc_source_id, stored._cdc_row_content
    {%- else %}
        select
            cast(null as string) as _cdc_source_id,
            cast(null as string) as row_content,
            cast(null as int) as stored_copies
        where false
    {%- endif %}

),

identified as (

    select
        history.*,
        case
            when not _cdc_is_snapshot then null
            when _kafka_offset is not null
                then concat_ws(':', _kafka_topic, cast(_kafka_partition as string), cast(_kafka_offset as string))
            else cast(row_number() over (
                    partition by
                        _cdc_source_id, row_content, copy_delta, _cdc_position, _cdc_row_index,
                        _cdc_op, _cdc_before, _cdc_after, _source_file, _load_id
                    order by _source_line
                ) as string)
        end as occurrence
    from history

),

unique_deltas as (

    select * except (copy_rank)
    from (
        select
            *,
            row_number() over (
                partition by
                    _cdc_source_id, row_content, copy_delta, _cdc_position, _cdc_row_index, _cdc_op,
                    _cdc_before, _cdc_after, occurrence
                order by _cdc_sort_key
            ) as copy_rank
        from identified
    ) as ranked
    where copy_rank = 1

),

scoped_truncates as (

    select truncates.*
    from truncates
    left semi join unique_deltas
        on truncates._cdc_source_id = unique_deltas._cdc_source_id

),

sequenced as (

    -- the newest truncate of its table before each change: the change's epoch
    select
        *,
        last_value(truncated_at, true) over (
            partition by _cdc_source_id
            order by _cdc_sort_key
            rows between unbounded preceding and current row
        ) as epoch
    from (
        select
            _cdc_source_id,
            _cdc_sort_key,
            cast(null as string) as truncated_at,
            struct(unique_deltas.*) as change_row
        from unique_deltas

        union all

        select
            _cdc_source_id,
            _cdc_sort_key,
            _cdc_sort_key as truncated_at,
            null as change_row
        from scoped_truncates
    ) as changes_and_truncates

),

counted as (

    -- copies after each change: the running sum, kept from going below zero
    select
        _cdc_source_id,
        change_row,
        epoch,
        running_sum - least(0, min(running_sum) over (
            partition by _cdc_source_id, change_row.row_content, epoch
            order by change_row._cdc_sort_key
            rows between unbounded preceding and current row
        )) as copies
    from (
        select
            *,
            sum(change_row.copy_delta) over (
                partition by _cdc_source_id, change_row.row_content, epoch
                order by change_row._cdc_sort_key
                rows between unbounded preceding and current row
            ) as running_sum
        from sequenced
        where change_row is not null
    ) as running

),

latest_truncates as (

    select
        _cdc_source_id,
        max(_cdc_sort_key) as truncated_at
    from scoped_truncates
    group by _cdc_source_id

),

contents as (

    select
        counted._cdc_source_id,
        counted.change_row.row_content,
        max_by(
            struct(counted.copies, counted.epoch, counted.change_row),
            counted.change_row._cdc_sort_key
        ) as latest,
        coalesce(
            max_by(counted.change_row, counted.change_row._cdc_sort_key)
            filter (where counted.change_row.copy_delta > 0),
            max_by(counted.change_row, counted.change_row._cdc_sort_key)
        ) as latest_image_row
    from counted
    group by counted._cdc_source_id, counted.change_row.row_content

),

resolved as (

    select
        contents._cdc_source_id,
        contents.row_content,
        contents.latest.change_row,
        contents.latest_image_row,
        -- a truncate after the content's latest change leaves no copy
        case
            when contents.latest.epoch <=> latest_truncates.truncated_at
                then cast(contents.latest.copies as int)
            else 0
        end as live_copies,
        stored_copies.stored_copies
    from contents
    left outer join latest_truncates
        on contents._cdc_source_id = latest_truncates._cdc_source_id
    left outer join stored_copies
        on contents._cdc_source_id = stored_copies._cdc_source_id
            and contents.row_content = stored_copies.row_content

),

copies as (

    select
        resolved.*,
        explode(case
            when greatest(resolved.live_copies, coalesce(resolved.stored_copies, 0)) > 0
                then sequence(1, greatest(resolved.live_copies, coalesce(resolved.stored_copies, 0)))
            else array()
        end) as copy_number
    from resolved

),

final as (

    select
        copies.change_row._message_id,
        copies.change_row._cdc_envelope,
        copies.change_row._cdc_connector,
        case when copies.copy_number <= copies.live_copies then copies.latest_image_row._cdc_op else 'd' end
            as _cdc_op,
        copies.change_row._cdc_source_db,
        copies.change_row._cdc_source_schema,
        copies.change_row._cdc_source_table,
        copies._cdc_source_id,
        case
            when copies.copy_number = 1 then copies.row_content
            else concat('{"_cdc_copy":"', copies.copy_number, '",', substr(copies.row_content, 2))
        end as _cdc_key,
        case when copies.copy_number > copies.live_copies then copies.latest_image_row.row_image end
            as _cdc_before,
        case when copies.copy_number <= copies.live_copies then copies.latest_image_row.row_image end
            as _cdc_after,
        copies.latest_image_row._cdc_column_types,
        copies.change_row._cdc_position,
        concat_ws(' ', copies.change_row._cdc_sort_key, resolution.resolution_stamp) as _cdc_sort_key,
        copies.change_row._cdc_is_snapshot,
        copies.change_row._cdc_snapshot,
        copies.change_row._cdc_source_ts,
        copies.change_row._cdc_emitted_ts,
        copies.change_row._cdc_transaction_id,
        copies.change_row._kafka_topic,
        copies.change_row._kafka_partition,
        copies.change_row._kafka_offset,
        copies.change_row._source_file,
        copies.change_row._source_line,
        -- a content resolved again is new to the models downstream
        greatest(copies.change_row._loaded_at, resolution.resolved_loaded_at) as _loaded_at,
        copies.change_row._load_id,
        copies.row_content as _cdc_row_content,
        copies.copy_number as _cdc_copy,
        copies.live_copies as _cdc_copies
    from copies
    cross join resolution

)

select * from final
