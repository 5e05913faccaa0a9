{% macro _cdc_partition(role) %}
    {#-
        The `cdc_bucket` partition of a parquet state table that plays `role`.
        The roles:
          delta             -2: the latest change of each key changed since the last
                            compaction (merge on read)
          truncate_markers  -1: one truncate marker per source table
        Key-hash buckets (the compacted rows, tombstones included) are 0 and above.
    -#}
    {%- set partitions = {'delta': -2, 'truncate_markers': -1} -%}
    {%- if role not in partitions -%}
        {{ exceptions.raise_compiler_error(
            "_cdc_partition: role '" ~ role ~ "' is not one of: " ~ partitions.keys() | sort | join(', ')) }}
    {%- endif -%}
    {{ return(partitions[role]) }}
{% endmacro %}
