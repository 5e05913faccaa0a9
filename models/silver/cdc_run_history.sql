{{
    config(
        materialized='cdc_incremental',
        incremental_strategy='append',
    )
}}

{%- set watermark = cdc_new_input_since() %}
{%- set skip_run = cdc_skip_unless_new_input() %}
{{ skip_run }}

-- One row per load and source: what a run's bronze load brought of each source table
-- (else Kafka topic, else landing file: _cdc_quarantine_source), what of it was
-- quarantined and why, how many row changes reached the change log, and how far they
-- lagged behind their source (commit time to load time). Incremental: a run reads the
-- loads it has not summarised (`_loaded_at` past its watermark) and appends their rows.

{%- set source = _cdc_quarantine_source() %}

with

messages as (

    select
        _message_id,
        _source_file,
        _loaded_at,
        _load_id,
        {{ source.kind }} as source_kind,
        {{ source.name }} as source_name
    from {{ ref('stg_cdc__messages') }}
    {% if watermark %}
        where _loaded_at > {{ watermark }}
    {% endif %}

),

quarantined as (

    select
        _loaded_at,
        {{ source.name }} as source_name,
        reason_code,
        count(*) as messages
    from {{ ref('cdc_quarantine') }}
    {% if watermark %}
        where _loaded_at > {{ watermark }}
    {% endif %}
    group by
        _loaded_at,
        {{ source.name }},
        reason_code

),

changes as (

    select
        _loaded_at,
        _cdc_source_id as source_name,
        count(*) as row_changes,
        max(_cdc_source_ts) as newest_source_ts,
        percentile(
            (unix_micros(_loaded_at) - unix_micros(_cdc_source_ts)) / 1e6, array(0.5, 0.95)
        ) as lag_percentiles,
        max((unix_micros(_loaded_at) - unix_micros(_cdc_source_ts)) / 1e6) as lag_max_seconds
    from {{ ref('int_cdc__change_log') }}
    {% if watermark %}
        where _loaded_at > {{ watermark }}
    {% endif %}
    group by
        _loaded_at,
        _cdc_source_id

),

loaded as (

    select
        _loaded_at,
        source_name,
        min(_load_id) as _load_id,
        min(source_kind) as source_kind,
        count(distinct _source_file) as files_loaded,
        count(distinct _message_id) as messages_loaded
    from messages
    group by
        _loaded_at,
        source_name

),

reasons as (

    select
        _loaded_at,
        source_name,
        sum(messages) as messages_quarantined,
        map_from_entries(collect_list(struct(reason_code, messages))) as quarantined_by_reason
    from quarantined
    group by
        _loaded_at,
        source_name

),

final as (

    select
        loaded._load_id,
        loaded._loaded_at,
        loaded.source_kind,
        loaded.source_name,
        loaded.files_loaded,
        loaded.messages_loaded,
        coalesce(reasons.messages_quarantined, 0) as messages_quarantined,
        reasons.quarantined_by_reason,
        coalesce(changes.row_changes, 0) as row_changes,
        changes.newest_source_ts,
        changes.lag_percentiles[0] as lag_p50_seconds,
        changes.lag_percentiles[1] as lag_p95_seconds,
        changes.lag_max_seconds
    from loaded
    left outer join reasons
        on
            loaded._loaded_at = reasons._loaded_at
            and loaded.source_name = reasons.source_name
    left outer join changes
        on
            loaded._loaded_at = changes._loaded_at
            and loaded.source_name = changes.source_name

)

select * from final
