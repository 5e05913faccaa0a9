{% test cdc_quiet_sources(model, column_name, max_quiet_hours, replayed_sources=none, source_column='sync_source', loaded_at_column='last_loaded_at') %}
    {#-
        Freshness per source: one row for every source (row of `model`) whose newest
        `column_name` (e.g. stg_cdc__sync_progress.last_event_ts: the latest eventTime of
        its heartbeats and changes) is null or older than `max_quiet_hours` before now: the
        sync has gone quiet, or stalled. Use it with severity warn.

        A replayed source (its `source_column` matches a glob pattern of `replayed_sources`,
        default the var `cdc_replayed_sources`: simulated or backfilled data, whose event
        times are in the past by design) is measured by `loaded_at_column` instead: quiet
        when nothing of it was loaded for `max_quiet_hours` (its event time may be null, as
        that of a transaction-metadata topic is).
    -#}
    {%- set patterns = cdc_lakehouse.cdc_var('cdc_replayed_sources') if replayed_sources is none else replayed_sources -%}
    {%- set patterns = [patterns] if patterns is string else (patterns or []) | list -%}
    {%- set is_replayed = cdc_lakehouse.cdc_source_matches({'database': patterns}, source_column, "''", "''")
          if patterns else 'false' %}
with

progress as (

    select
        *,
        {{ is_replayed }} as is_replayed,
        (
            unix_timestamp(current_timestamp())
            - unix_timestamp(case when {{ is_replayed }} then {{ loaded_at_column }} else {{ column_name }} end)
        ) / 3600.0 as quiet_hours
    from {{ model }}

)

select * from progress
where quiet_hours is null or quiet_hours > {{ max_quiet_hours }}
{% endtest %}
