{% test cdc_quiet_sources(model, column_name, max_quiet_hours) %}
    {#-
        Freshness per source: one row for every source (row of `model`) whose newest
        `column_name` (e.g. stg_cdc__sync_progress.last_event_ts: the latest eventTime of
        its heartbeats and changes) is null or older than `max_quiet_hours` before now: the
        sync has gone quiet, or stalled. Use it with severity warn.
    -#}
select
    *,
    (unix_timestamp(current_timestamp()) - unix_timestamp({{ column_name }})) / 3600.0 as quiet_hours
from {{ model }}
where {{ column_name }} is null
    or (unix_timestamp(current_timestamp()) - unix_timestamp({{ column_name }})) / 3600.0
        > {{ max_quiet_hours }}
{% endtest %}
