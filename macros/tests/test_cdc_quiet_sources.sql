{% test cdc_quiet_sources(model, column_name, max_quiet_hours, replayed_sources=none, source_column='sync_source', loaded_at_column='last_loaded_at') -%}
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
