{{
    config(
        materialized='incremental',
        incremental_strategy='append',
    )
}}

{#- one watermark query, shared by the batch filter and the late keys' history filter -#}
{%- set watermark = cdc_loaded_watermark(this) if is_incremental() else none %}

-- Every change of a document collection (MongoDB) with the whole document after it: the
-- change's full document, or its patch folded onto the document before it, in source
-- order (cdc_mongodb_fold, python_udfs/). A run folds its new changes onto the latest
-- document this model holds for each key; a key that receives a change older than that
-- one (a late or replayed event) is folded again from its whole change history, and all
-- its versions are written again with a newer resolution stamp, so the newest resolution
-- wins downstream. A patch whose base document was never seen gives a partial document
-- (_cdc_is_partial); a patch that cannot be applied keeps the document as it was and
-- carries _cdc_error_reason (quarantined by cdc_quarantine).

with

new_changes as (

    select *
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind = 'change'
        and {{ cdc_in_list('_cdc_envelope', cdc_document_families()) }}
    {%- if is_incremental() %}
        and _loaded_at > {{ watermark }}
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

{% if is_incremental() %}

stored_latest as (

    select
        stored._cdc_source_id,
        stored._cdc_key,
        max_by(
            struct(stored._cdc_after as document, stored._cdc_is_partial as is_partial),
            stored._cdc_sort_key
        ) as latest_version,
        max(stored._cdc_message_sort_key) as latest_message_sort_key
    from {{ this }} as stored
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
        and {{ cdc_in_list('earlier_changes._cdc_envelope', cdc_document_families()) }}
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

grouped as (

    select
        to_fold._cdc_source_id,
        to_fold._cdc_key,
        bases.base_doc,
        coalesce(bases.base_partial, false) as base_partial,
        array_sort(collect_list(struct(
            to_fold._cdc_sort_key,
            to_fold._message_id,
            to_fold._cdc_envelope,
            to_fold._cdc_connector,
            to_fold._cdc_op,
            to_fold._cdc_source_db,
            to_fold._cdc_source_schema,
            to_fold._cdc_source_table,
            to_fold._cdc_after,
            to_fold._cdc_patch,
            {{ _cdc_document_patch('to_fold._cdc_patch') }} as patch_parts,
            to_fold._cdc_position,
            to_fold._cdc_is_snapshot,
            to_fold._cdc_snapshot,
            to_fold._cdc_source_ts,
            to_fold._cdc_emitted_ts,
            to_fold._cdc_transaction_id,
            to_fold._kafka_topic,
            to_fold._kafka_partition,
            to_fold._kafka_offset,
            to_fold._source_file,
            to_fold._source_line,
            to_fold._loaded_at,
            to_fold._load_id
        ))) as changes
    from to_fold
    inner join bases
        on to_fold._cdc_source_id = bases._cdc_source_id
        and to_fold._cdc_key = bases._cdc_key
    group by to_fold._cdc_source_id, to_fold._cdc_key, bases.base_doc, bases.base_partial

),

folded as (

    select
        grouped.*,
        {% if cdc_function_exists('cdc_mongodb_fold') -%}
        from_json(
            cdc_mongodb_fold(
                base_doc,
                base_partial,
                to_json(transform(changes, change_row -> named_struct(
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
                    'key', coalesce(concat('{"_id":', change_row.patch_parts.id, '}'), _cdc_key)
                )))
            ),
            'array<struct<doc: string, partial: boolean, error: string>>'
        ) as results
        {% else -%}
        -- the Python UDF is not registered in this session: every change is quarantined
        -- (nothing is lost: rebuild this model with --full-refresh once it is registered)
        transform(changes, change_row -> named_struct(
            'doc', cast(null as string),
            'partial', false,
            'error', 'document_fold_unavailable: the SQL function cdc_mongodb_fold is not '
                || 'registered in this Spark session (python_udfs/README.md)'
        )) as results
        {%- endif %}
    from grouped

),

resolved_versions as (

    select
        folded._cdc_source_id,
        folded._cdc_key,
        inline(transform(folded.changes, (change_row, i) -> struct(
            change_row,
            folded.results[i] as result,
            case when i = 0 then folded.base_doc else folded.results[i - 1].doc end
                as previous_doc
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
        resolved_versions._cdc_key,
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
