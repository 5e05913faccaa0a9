{% macro cdc_history(changes, key_columns, value_columns) -%}
{{ cdc_lakehouse._cdc_history_sql(changes, key_columns, value_columns) }}
{% endmacro %}
