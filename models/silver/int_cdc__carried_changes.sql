{%- set placeholder = cdc_lakehouse.cdc_var('cdc_unavailable_value_placeholder') -%}
{{
    config(
        materialized='cdc_incremental',
        incremental_strategy='append',
        cdc_input_kinds=['unavailable', 'postgresql_delete'],
        cdc_unavailable_value_placeholder=placeholder,
    )
}}

{%- set watermark = cdc_new_input_since() %}
{#- without a new change holding the placeholder or a new PostgreSQL delete (stg_cdc__messages records
    what its writes held: cdc_input_kinds), or without a placeholder to look for, a run has
    nothing to do: no query, no Spark job -#}
{%- set skip_run = cdc_skip_unless_new_input(none if placeholder else false) %}
{{ skip_run }}

-- Row changes whose unavailable values (Debezium's placeholder for a PostgreSQL value it did
-- not log: an unchanged TOASTed column) were carried over from their key's change before, one
-- row per change and resolution; int_cdc__change_log reads the newest resolution of a change
-- in place of the message. An update or delete takes each placeholder from its key's image
-- before (a PostgreSQL delete whose image holds only the key takes every other column). A
-- create starts a new row and takes nothing, except the create of a primary-key change: it
-- takes its placeholders from the image the old key's delete at the same source position
-- ended. A create whose delete has not arrived is written with nulls and waits
-- (_cdc_is_waiting); the run that brings the delete writes it again, and the changes of its
-- key after it, resolved. A run folds each key it touches from its whole history in
-- stg_cdc__messages; each written row carries a newer resolution stamp in `_cdc_sort_key`,
-- so the newest resolution wins downstream. A placeholder nothing resolves reads as null.

{%- set columns = _cdc_change_log_columns() %}

with

messages as (

    select
        {{ _cdc_select_list(columns, {'_cdc_is_partial': 'false as _cdc_is_partial'}) }},
        _cdc_row_index,
        case when _cdc_op = 'd' then coalesce(_cdc_before, _cdc_key) else _cdc_after end as image
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind = 'change'
        and not {{ _cdc_is_folded_change() }}
        and not _cdc_is_keyless
        and _cdc_op in ('c', 'u', 'd', 'r')

),

new_changes as (

    select * from messages
    {%- if cdc_is_incremental() %}
    where _loaded_at > {{ watermark }}
    {%- endif %}
    {%- if skip_run %}
    {{ 'and' if cdc_is_incremental() else 'where' }} false
    {%- endif %}

),

arrived as (

    select distinct
        _message_id,
        _cdc_row_index
    from new_changes

),

resolution as (

    select
        max(_loaded_at) as resolved_loaded_at,
        date_format(max(_loaded_at), 'yyyyMMddHHmmssSSSSSS') as resolution_stamp
    from new_changes

),

{%- if cdc_is_incremental() %}

stored_creates as (

    -- the newest resolution of each stored create
    select
        _cdc_source_id,
        _cdc_key,
        _cdc_position,
        _message_id,
        _cdc_row_index,
        _cdc_after,
        _cdc_is_waiting,
        row_number() over (
            partition by _message_id, _cdc_row_index order by _cdc_sort_key desc
        ) as resolution_rank
    from {{ this }}
    where _cdc_op = 'c'

),

waiting as (

    -- the creates still waiting for their old key's delete
    select
        _cdc_source_id,
        _cdc_key,
        _cdc_position
    from stored_creates
    where resolution_rank = 1 and _cdc_is_waiting

),

resolved_creates as (

    -- the creates of primary-key changes already resolved: a key folded again starts from them
    select
        _message_id,
        _cdc_row_index,
        _cdc_after as image
    from stored_creates
    where resolution_rank = 1 and not _cdc_is_waiting

),

revisited as (

    -- the waiting creates whose delete arrived in this run
    select distinct
        waiting._cdc_source_id,
        waiting._cdc_key,
        waiting._cdc_position
    from waiting
    left semi join new_changes
        on waiting._cdc_source_id = new_changes._cdc_source_id
        and waiting._cdc_position = new_changes._cdc_position
        and new_changes._cdc_op = 'd'

),

revisited_keys as (

    select distinct
        _cdc_source_id,
        _cdc_key
    from revisited

),

{%- endif %}

touched_keys as (

    -- the keys of new changes holding the placeholder, of new PostgreSQL deletes (their image
    -- may hold the key alone) and of the waiting creates this run resolves
    select distinct
        _cdc_source_id,
        _cdc_key
    from new_changes
    where {{ _debezium_holds_unavailable('image') }}
        or (_cdc_op = 'd' and coalesce(_cdc_connector = 'postgresql', false))
    {%- if cdc_is_incremental() %}
    union
    select
        _cdc_source_id,
        _cdc_key
    from revisited_keys
    {%- endif %}

),

key_change_positions as (

    -- the source positions of the new creates holding the placeholder and of the waiting
    -- creates this run resolves: a primary-key change's new key
    select distinct
        _cdc_source_id,
        _cdc_position
    from new_changes
    where _cdc_op = 'c' and {{ _debezium_holds_unavailable('image') }}
    {%- if cdc_is_incremental() %}
    union
    select
        _cdc_source_id,
        _cdc_position
    from revisited
    {%- endif %}

),

old_keys as (

    -- the keys deleted at those positions: a primary-key change's old key
    select distinct
        messages._cdc_source_id,
        messages._cdc_key
    from messages
    left semi join key_change_positions
        on messages._cdc_source_id = key_change_positions._cdc_source_id
            and messages._cdc_position = key_change_positions._cdc_position
    where messages._cdc_op = 'd'

),

fold_keys as (

    select
        _cdc_source_id,
        _cdc_key
    from touched_keys
    union
    select
        _cdc_source_id,
        _cdc_key
    from old_keys

),

histories as (

    -- every change of a key to fold, oldest first
    select
        messages._cdc_source_id,
        messages._cdc_key,
        array_sort(collect_list(struct(
            messages._cdc_sort_key,
            messages._message_id,
            messages._cdc_row_index,
            messages._cdc_op,
            messages._cdc_connector,
            messages._cdc_position,
            {%- if cdc_is_incremental() %}
            coalesce(resolved_creates.image, messages.image) as image
            {%- else %}
                messages.image
            {%- endif %}
        ))) as change_rows
    from messages
    left semi join fold_keys
        on messages._cdc_source_id = fold_keys._cdc_source_id
            and messages._cdc_key = fold_keys._cdc_key
    {%- if cdc_is_incremental() %}
    left outer join resolved_creates
        on messages._message_id = resolved_creates._message_id
        and messages._cdc_row_index = resolved_creates._cdc_row_index
        and messages._cdc_op = 'c'
    {%- endif %}
    group by messages._cdc_source_id, messages._cdc_key

),

first_fold as (

    -- each key folded alone: its updates and deletes carried over, its creates as sent
    select
        _cdc_source_id,
        _cdc_key,
        inline(arrays_zip(change_rows, {{ _debezium_unavailable_fold('change_rows') }}))
            as (change_row, carried_image)
    from histories

),

key_change_bases as (

    -- for each position of a primary-key change, the row its old key's delete ended
    select
        _cdc_source_id,
        change_row._cdc_position,
        max_by(carried_image, change_row._cdc_sort_key) as base_image
    from first_fold
    where change_row._cdc_op = 'd'
    group by _cdc_source_id, change_row._cdc_position

),

patched as (

    -- a create holding the placeholder takes it from the row its old key's delete ended
    {%- set base = "key_change_bases.base_image" %}
    select
        first_fold._cdc_source_id,
        first_fold._cdc_key,
        first_fold.change_row,
        case
            when first_fold.change_row._cdc_op = 'c' and {{ base }} is not null
                then {{ _debezium_unavailable_filled('first_fold.change_row.image', base, 'false') }}
            else first_fold.change_row.image
        end as patched_image,
        first_fold.change_row._cdc_op = 'c'
        and {{ _debezium_holds_unavailable('first_fold.change_row.image') }}
        and {{ base }} is null as is_waiting
    from first_fold
    left outer join key_change_bases
        on first_fold._cdc_source_id = key_change_bases._cdc_source_id
            and first_fold.change_row._cdc_position = key_change_bases._cdc_position
            and first_fold.change_row._cdc_op = 'c'

),

patched_histories as (

    -- each touched key's changes again, its creates patched
    select
        patched._cdc_source_id,
        patched._cdc_key,
        array_sort(collect_list(struct(
            patched.change_row._cdc_sort_key,
            patched.change_row._message_id,
            patched.change_row._cdc_row_index,
            patched.change_row._cdc_op,
            patched.change_row._cdc_connector,
            patched.change_row.image as sent_image,
            patched.patched_image as image,
            patched.is_waiting
        ))) as change_rows
    from patched
    left semi join touched_keys
        on patched._cdc_source_id = touched_keys._cdc_source_id
            and patched._cdc_key = touched_keys._cdc_key
    group by patched._cdc_source_id, patched._cdc_key

),

second_fold as (

    -- each touched key folded again; a placeholder nothing resolved reads as null
    select
        _cdc_source_id,
        _cdc_key,
        inline(arrays_zip(
            change_rows,
            transform(
                {{ _debezium_unavailable_fold('change_rows') }},
                carried -> {{ _debezium_unavailable_as_null('carried') }}
            )
        )) as (change_row, carried_image)
    from patched_histories

),

carried as (

    -- the changes the fold altered, new in this run or of a key whose waiting create it resolves
    select
        second_fold.change_row._message_id as carried_message_id,
        second_fold.change_row._cdc_row_index as carried_row_index,
        second_fold.change_row.is_waiting as _cdc_is_waiting,
        second_fold.carried_image
    from second_fold
    left outer join arrived
        on second_fold.change_row._message_id = arrived._message_id
            and second_fold.change_row._cdc_row_index = arrived._cdc_row_index
    {%- if cdc_is_incremental() %}
    left outer join revisited_keys
        on second_fold._cdc_source_id = revisited_keys._cdc_source_id
        and second_fold._cdc_key = revisited_keys._cdc_key
    {%- endif %}
    where (
        second_fold.carried_image is distinct from second_fold.change_row.sent_image
        or second_fold.change_row.is_waiting
    )
    and (
        arrived._message_id is not null
        {%- if cdc_is_incremental() %}
        or revisited_keys._cdc_key is not null
        {%- endif %}
    )

),

final as (

    select
        {{ _cdc_select_list(columns + ['_cdc_row_index'], {
            '_cdc_before': "case when _cdc_op = 'd' and _cdc_before is not null then carried_image "
                ~ "else _cdc_before end as _cdc_before",
            '_cdc_after': "case when _cdc_op != 'd' then carried_image else _cdc_after end as _cdc_after",
            '_cdc_sort_key': "concat_ws(' ', _cdc_sort_key, resolution_stamp) as _cdc_sort_key",
            '_loaded_at': 'greatest(_loaded_at, resolved_loaded_at) as _loaded_at',
        }) }},
        -- the message's sort key: the resolution stamp after it makes a change resolved again
        -- win its ties; a change written again is new to the models downstream (_loaded_at)
        messages._cdc_sort_key as _cdc_message_sort_key,
        carried._cdc_is_waiting
    from carried
    inner join messages
        on carried.carried_message_id = messages._message_id
            and carried.carried_row_index = messages._cdc_row_index
    cross join resolution

)

select * from final
