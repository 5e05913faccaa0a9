{{ config(materialized='cdc_view') }}

-- Typed change logs whose rejected rows this view unions: those the var
-- cdc_typed_change_logs names, models of the root project (which lists its own there;
-- cdc_tools.scaffold registers what it writes) or `<package>.<model>`. A typed model
-- missing from it fails compilation with a message that says so.
{%- for typed_change_log in cdc_lakehouse.cdc_var('cdc_typed_change_logs') %}
{%- set package, name = (typed_change_log.split('.', 1) if '.' in typed_change_log
    else [project_name, typed_change_log]) %}
-- depends_on: {{ ref(package, name) }}
{%- endfor %}

-- Everything that could not be applied, with the reason: messages silver cannot read,
-- and row changes whose values break their table's contract (every typed change log).

with

bronze_lines as (

    -- one row per message id: a query of this view that reads no raw_line reads no bronze
    -- (Spark drops a left join whose right side is unique on the join key)
    select
        _message_id,
        max(raw_line) as raw_line
    from {{ ref('bronze_cdc_messages') }}
    group by _message_id

),

unreadable_messages as (

    -- one row per unreadable row change: a message split into several row changes
    -- (_cdc_row_index) is listed once per row change
    select
        _message_id,
        case
            when _cdc_error_reason rlike '^(unreadable_file|empty_file):' then 'file'
            else 'envelope'
        end as quarantine_stage,
        _cdc_connector,
        _cdc_source_id,
        _cdc_error_reason,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at,
        _cdc_row_index
    from {{ ref('stg_cdc__messages') }}
    where _cdc_message_kind = 'error'

),

unreadable_rows as (

    {{ cdc_typed_change_log_errors() }}

),

document_resolutions as (

    -- the newest resolution of each document change (a key folded again is written again)
    select
        *,
        row_number() over (partition by _message_id order by _cdc_sort_key desc) as resolution
    from {{ ref('int_cdc__document_changes') }}

),

unfoldable_documents as (

    -- document changes that could not be applied (the document stays as it was), and
    -- patches applied to a document whose full version was never seen (kept, flagged
    -- _cdc_is_partial in gold)
    select
        _message_id,
        'document' as quarantine_stage,
        _cdc_connector,
        _cdc_source_id,
        coalesce(
            _cdc_error_reason,
            'partial_document: a patch applied to a document (or a compressed update to a '
            || 'row) whose full version never arrived; it is kept partial until a full one '
            || 'replaces it'
        ) as _cdc_error_reason,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at,
        cast(null as int) as _cdc_row_index
    from document_resolutions
    where resolution = 1
        and (_cdc_error_reason is not null or _cdc_is_partial and _cdc_patch is not null)

),

quarantined as (

    select * from unreadable_messages
    union all
    select
        *,
        cast(null as int) as _cdc_row_index
    from unreadable_rows
    union all
    select * from unfoldable_documents

),

final as (

    select
        quarantined._message_id,
        quarantined._cdc_row_index,
        quarantined.quarantine_stage,
        quarantined._cdc_connector,
        quarantined._cdc_source_id,
        split_part(quarantined._cdc_error_reason, ':', 1) as reason_code,
        quarantined._cdc_error_reason,
        bronze_lines.raw_line,
        quarantined._kafka_topic,
        quarantined._kafka_partition,
        quarantined._kafka_offset,
        quarantined._source_file,
        quarantined._source_line,
        quarantined._loaded_at
    from quarantined
    left outer join bronze_lines
        on quarantined._message_id = bronze_lines._message_id

)

select * from final
