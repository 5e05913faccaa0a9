{% test cdc_source_lag(model, column_name, max_seconds=none) -%}
    {%- set limit = max_seconds if max_seconds is not none else cdc_lakehouse.cdc_var('cdc_max_lag_seconds') %}
select
    _load_id,
    _loaded_at,
    source_name,
    {{ column_name }} as lag_seconds
from {{ model }}
where {{ 'false' if limit is none else column_name ~ ' > ' ~ (limit | float) }}
{% endtest %}
