{% macro _cdc_history_stored_columns(key_columns, value_columns) %}
    {#- The columns of a cdc_history state table, in their order. -#}
    {{ return(
        ['_cdc_source_id'] + key_columns + value_columns
        + ['_cdc_op', '_cdc_position', '_cdc_sort_key', '_cdc_source_ts', '_cdc_source_db', '_loaded_at']
        + ['valid_to', 'is_current', 'next_position', 'closing_position']
    ) }}
{% endmacro %}
