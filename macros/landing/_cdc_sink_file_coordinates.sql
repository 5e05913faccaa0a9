{% macro _cdc_sink_file_coordinates(path_expression) %}
    {#- The topic, partition and start offset in a Kafka Connect sink file's name. -#}
    {%- set pattern = "'([^/+]+)[+]([0-9]+)[+]([0-9]+)[.][^/]*$'" -%}
    nullif(regexp_extract({{ path_expression }}, {{ pattern }}, 1), '') as file_topic,
    try_cast(nullif(regexp_extract({{ path_expression }}, {{ pattern }}, 2), '') as int)
        as file_partition,
    try_cast(nullif(regexp_extract({{ path_expression }}, {{ pattern }}, 3), '') as bigint)
        as file_start_offset
{%- endmacro %}
