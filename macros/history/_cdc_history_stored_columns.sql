{% macro _cdc_history_stored_columns(key_columns, value_columns) %}
    {#-
        The columns of a cdc_history state table, in their order.
        cdc_bucket, the partition column, comes last. First the change columns
        a key's history is resolved from again, then the resolution of the compacted rows (null
        in the delta partition): valid_to, is_current, and the positions that bound the version
        (next_position, of the key's next change; closing_position, of the truncate that closed
        it).
    -#}
    {{ return(
        ['_cdc_source_id'] + key_columns + value_columns
        + ['_cdc_op', '_cdc_position', '_cdc_sort_key', '_cdc_source_ts', '_cdc_source_db', '_loaded_at']
        + ['valid_to', 'is_current', 'next_position', 'closing_position']
    ) }}
{% endmacro %}
