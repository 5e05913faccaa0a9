{{
    config(
        materialized='cdc_incremental',
        incremental_strategy='append',
        pre_hook="{{ _cdc_drop_latest_versions() }}",
        post_hook="{{ _cdc_record_latest_versions() }}",
        cdc_input_kinds=['folded'],
    )
}}

{#- one watermark query, shared by the batch filter and the late keys' history filter -#}
{%- set watermark = cdc_new_input_since() %}
{#- without a new folded change (stg_cdc__messages records what its writes held:
    cdc_input_kinds) a run has nothing to do: no query, no Spark job -#}
{%- set skip_run = cdc_skip_unless_new_input() %}
{{ skip_run }}

-- Every change of a document collection (MongoDB) with the whole document after it: the
-- change's full document, or its patch folded onto the document before it, in source
-- order (python_udfs/transform.py, run by Spark's transform clause); and every keyed change of a family whose update
-- images may be partial (OGG's compressed updates, _cdc_folded_families) with the whole
-- row after it, its columns set on the row before it (_cdc_row_image_fold). A key change
-- (a message that deletes one key and writes another) starts the new key from the row
-- the delete ended. A run folds its new changes onto the latest document this model
-- holds for each key (looked up in its table of latest versions, a row per key kept by
-- its post-hook: _cdc_record_latest_versions); a key that receives a change older than
-- that one (a late or replayed event) is folded again from its whole change history, and all
-- its versions are written again with a newer resolution stamp, so the newest resolution
-- wins downstream. A patch whose base document was never seen gives a partial document
-- (_cdc_is_partial); a patch that cannot be applied keeps the document as it was and
-- carries _cdc_error_reason (quarantined by cdc_quarantine).

with

new_changes as (

    select *
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind = 'change'
        and {{ _cdc_is_folded_change() }}
    {%- if cdc_is_incremental() %}
        and _loaded_at > {{ watermark }}
    {%- endif %}
    {%- if skip_run %}
        and false
    {%- endif %}

),

batch_keys as (

    select
        _cdc_source_id,
        _cdc_key,
        min(_cdc_sort_key) as first_sort_key,
        max(_loaded_at) as batch_loaded_at
    from new_changes
    group by _cdc_source_id, _cdc_key

),

resolution as (

    select
        max(batch_loaded_at) as resolved_loaded_at,
        date_format(max(batch_loaded_at), 'yyyyMMddHHmmssSSSSSS') as resolution_stamp
    from batch_keys

),

{% if cdc_is_incremental() %}

stored_latest as (

    -- the latest stored version of each key of the batch, from the table of latest
    -- versions (a row per key) and the rows loaded since it was brought up to date
    -- (_cdc_latest_versions_sql): not from every version this model holds
    select
        stored._cdc_source_id,
        stored._cdc_key,
        max_by(stored.latest_version, stored.latest_sort_key) as latest_version,
        max(stored.latest_message_sort_key) as latest_message_sort_key
    from ({{ _cdc_latest_versions_grouped(this) if skip_run else _cdc_latest_versions_sql(this) }}) as stored
    left semi join batch_keys
        on stored._cdc_source_id = batch_keys._cdc_source_id
        and stored._cdc_key = batch_keys._cdc_key
    group by stored._cdc_source_id, stored._cdc_key

),

bases as (

    select
        batch_keys._cdc_source_id,
        batch_keys._cdc_key,
        -- a change at or before the stored latest one (late, replayed or read again)
        coalesce(
            batch_keys.first_sort_key <= stored_latest.latest_message_sort_key, false
        ) as is_late,
        case
            when batch_keys.first_sort_key > stored_latest.latest_message_sort_key
                then stored_latest.latest_version.document
        end as base_doc,
        case
            when batch_keys.first_sort_key > stored_latest.latest_message_sort_key
                then stored_latest.latest_version.is_partial
        end as base_partial
    from batch_keys
    left outer join stored_latest
        on batch_keys._cdc_source_id = stored_latest._cdc_source_id
        and batch_keys._cdc_key = stored_latest._cdc_key

),

late_history as (

    -- every earlier change of a key that received a late one: the key is folded again
    select earlier_changes.*
    from {{ ref('stg_cdc__messages') }} as earlier_changes
    left semi join bases
        on earlier_changes._cdc_source_id = bases._cdc_source_id
        and earlier_changes._cdc_key = bases._cdc_key
        and bases.is_late
    where earlier_changes._cdc_message_kind = 'change'
        and {{ _cdc_is_folded_change('earlier_changes') }}
        and earlier_changes._loaded_at <= {{ watermark }}

),

to_fold as (

    select * from new_changes
    union all
    select * from late_history

),

{% else %}

bases as (

    select
        _cdc_source_id,
        _cdc_key,
        false as is_late,
        cast(null as string) as base_doc,
        cast(null as boolean) as base_partial
    from batch_keys

),

to_fold as (

    select * from new_changes

),

{% endif %}

key_changes as (

    -- messages whose second row change is an update: a key change (OGG's primary-key
    -- update: the delete of the old key, then the new key's row, which starts from the row
    -- that delete ended)
    select distinct _message_id
    from to_fold
    where _cdc_row_index > 0
        and _cdc_op = 'u'
        and not {{ _cdc_in_list('_cdc_envelope', _cdc_document_families()) }}

),

involved_keys as (

    -- both keys of every key change: their changes are folded together, per table
    select distinct
        to_fold._cdc_source_id,
        to_fold._cdc_key
    from to_fold
    left semi join key_changes
        on to_fold._message_id = key_changes._message_id

),

{%- if cdc_is_incremental() %}

stored_retired as (

    -- the row a stored key change's delete ended (its newest version's _cdc_before), for
    -- a key change whose delete is not folded again in this run
    select
        stored._message_id,
        max_by(
            named_struct('doc', stored._cdc_before, 'partial', stored._cdc_is_partial),
            stored._cdc_sort_key
        ) as retired
    from {{ this }} as stored
    left semi join key_changes
        on stored._message_id = key_changes._message_id
    where stored._cdc_op = 'd'
        -- only row-image families change keys: parquet statistics skip the files of
        -- documents alone
        and {{ _cdc_in_list('stored._cdc_envelope', _cdc_folded_families() | reject('in', _cdc_document_families()) | list) }}
    group by stored._message_id

),

{%- endif %}

fold_input as (

    select
        to_fold.*,
        bases.base_doc,
        coalesce(bases.base_partial, false) as base_partial,
        key_changes._message_id is not null and to_fold._cdc_row_index > 0 as is_key_change,
        {{ 'stored_retired.retired' if cdc_is_incremental() else 'cast(null as struct<doc: string, partial: boolean>)' }}
            as carried_base,
        -- a document, or a row no key change touched, is folded alone; the rows of key
        -- changes are folded together with the rest of their table's involved keys
        case when involved_keys._cdc_key is null then to_fold._cdc_key else '*' end as fold_group
    from to_fold
    inner join bases
        on to_fold._cdc_source_id = bases._cdc_source_id
        and to_fold._cdc_key = bases._cdc_key
    left outer join key_changes
        on to_fold._message_id = key_changes._message_id
    left outer join involved_keys
        on to_fold._cdc_source_id = involved_keys._cdc_source_id
        and to_fold._cdc_key = involved_keys._cdc_key
    {%- if cdc_is_incremental() %}
    left outer join stored_retired
        on to_fold._message_id = stored_retired._message_id
        and to_fold._cdc_row_index > 0
    {%- endif %}

),

grouped as (

    select
        _cdc_source_id,
        fold_group,
        _cdc_envelope,
        map_from_entries(collect_set(struct(
            _cdc_key, named_struct('doc', base_doc, 'partial', base_partial)
        ))) as bases,
        array_sort(collect_list(struct(
            _cdc_sort_key,
            _message_id,
            _cdc_row_index,
            _cdc_key,
            is_key_change,
            carried_base,
            _cdc_envelope,
            _cdc_connector,
            _cdc_op,
            _cdc_source_db,
            _cdc_source_schema,
            _cdc_source_table,
            _cdc_after,
            _cdc_patch,
            {{ _cdc_document_patch('_cdc_patch') }} as patch_parts,
            _cdc_position,
            _cdc_is_snapshot,
            _cdc_snapshot,
            _cdc_source_ts,
            _cdc_emitted_ts,
            _cdc_transaction_id,
            _kafka_topic,
            _kafka_partition,
            _kafka_offset,
            _source_file,
            _source_line,
            _loaded_at,
            _load_id
        ))) as changes
    from fold_input
    group by _cdc_source_id, fold_group, _cdc_envelope

),

document_groups as (

    -- a document's changes, as the fold reads them (python_udfs/mongodb_sql.py: fold_json);
    -- every group goes through, a row image's with no changes (the fold answers null): with
    -- no filter here, this read of `grouped` is the one `folded` makes, and Spark computes
    -- it once (a reused exchange) instead of twice
    {%- set is_document = _cdc_in_list('_cdc_envelope', _cdc_document_families()) %}
    select
        _cdc_source_id,
        fold_group,
        _cdc_envelope,
        case when {{ is_document }} then bases[fold_group].doc end as base_doc,
        cast(bases[fold_group].partial as string) as base_partial,
        case when {{ is_document }} then to_json(transform(changes, change_row -> named_struct(
            'op', change_row._cdc_op,
            'after', change_row._cdc_after,
            'patch', change_row.patch_parts.patch,
            'update_description', named_struct(
                'updatedFields', change_row.patch_parts.update_description.updatedFields,
                'removedFields', change_row.patch_parts.update_description.removedFields,
                'truncatedArrays', transform(
                    change_row.patch_parts.update_description.truncatedArrays,
                    truncated -> named_struct(
                        'field', truncated.field, 'size', cast(truncated.size as int)
                    )
                )
            ),
            -- a document never seen starts from its `_id` as sent
            'key', coalesce(concat('{"_id":', change_row.patch_parts.id, '}'), fold_group)
        ))) end as changes_json
    from grouped

),

document_folds as (

    -- each document's changes folded onto its base, in source order, by the package's
    -- Python (Spark SQL's transform clause: no UDF to register)
    {{ _cdc_python_transform(
        'mongodb_fold',
        ['_cdc_source_id', 'fold_group', '_cdc_envelope'],
        ['base_doc', 'base_partial', 'changes_json'],
        'document_groups',
        'results_json'
    ) }}

),

folded as (

    select
        grouped.*,
        case
            when not {{ _cdc_in_list('grouped._cdc_envelope', _cdc_document_families()) }}
                then {{ _cdc_row_image_fold('grouped.bases', 'grouped.changes') }}
            else transform(
                from_json(
                    document_folds.results_json,
                    'array<struct<doc: string, partial: boolean, error: string>>'
                ),
                -- the document before each change: the one the change before it left
                (result, i) -> named_struct(
                    'doc', result.doc,
                    'partial', result.partial,
                    'error', result.error,
                    'previous', case when i = 0 then grouped.bases[grouped.fold_group].doc end
                )
            )
        end as results
    from grouped
    left outer join document_folds
        on grouped._cdc_source_id = document_folds._cdc_source_id
        and grouped.fold_group = document_folds.fold_group
        and grouped._cdc_envelope = document_folds._cdc_envelope

),

resolved_versions as (

    select
        folded._cdc_source_id,
        inline(transform(folded.changes, (change_row, i) -> struct(
            change_row,
            folded.results[i] as result,
            -- a document's previous version is the one the change before it left
            case
                when {{ _cdc_in_list('folded._cdc_envelope', _cdc_document_families()) }} and i > 0
                    then folded.results[i - 1].doc
                else folded.results[i].previous
            end as previous_doc
        ))) as (change_row, fold_result, previous_doc)
    from folded

),

final as (

    select
        resolved_versions.change_row._message_id,
        resolved_versions.change_row._cdc_envelope,
        resolved_versions.change_row._cdc_connector,
        resolved_versions.change_row._cdc_op,
        resolved_versions.change_row._cdc_source_db,
        resolved_versions.change_row._cdc_source_schema,
        resolved_versions.change_row._cdc_source_table,
        resolved_versions._cdc_source_id,
        resolved_versions.change_row._cdc_key,
        resolved_versions.previous_doc as _cdc_before,
        resolved_versions.fold_result.doc as _cdc_after,
        resolved_versions.change_row._cdc_patch,
        coalesce(resolved_versions.fold_result.partial, false) as _cdc_is_partial,
        coalesce(
            resolved_versions.fold_result.error,
            case when resolved_versions.fold_result is null then 'fold_failed: the document fold returned no result' end
        ) as _cdc_error_reason,
        resolved_versions.change_row._cdc_position,
        -- the message's sort key, then this resolution: a key folded again wins its ties
        concat_ws(' ', resolved_versions.change_row._cdc_sort_key, resolution.resolution_stamp) as _cdc_sort_key,
        resolved_versions.change_row._cdc_sort_key as _cdc_message_sort_key,
        resolved_versions.change_row._cdc_is_snapshot,
        resolved_versions.change_row._cdc_snapshot,
        resolved_versions.change_row._cdc_source_ts,
        resolved_versions.change_row._cdc_emitted_ts,
        resolved_versions.change_row._cdc_transaction_id,
        resolved_versions.change_row._kafka_topic,
        resolved_versions.change_row._kafka_partition,
        resolved_versions.change_row._kafka_offset,
        resolved_versions.change_row._source_file,
        resolved_versions.change_row._source_line,
        -- a version written again is new to the models downstream
        greatest(resolved_versions.change_row._loaded_at, resolution.resolved_loaded_at) as _loaded_at,
        resolved_versions.change_row._load_id
    from resolved_versions
    cross join resolution

)

select * from final
