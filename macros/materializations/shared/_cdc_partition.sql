{% macro _cdc_partition(role) %}
    {#- The `cdc_bucket` partition of a parquet state table that plays `role` (delta: -2, truncate_markers: -1). -#}
    {%- set partitions = {'delta': -2, 'truncate_markers': -1} -%}
    {%- if role not in partitions -%}
        {{ exceptions.raise_compiler_error(
            "_cdc_partition: role '" ~ role ~ "' is not one of: " ~ partitions.keys() | sort | join(', ')) }}
    {%- endif -%}
    {{ return(partitions[role]) }}
{% endmacro %}
