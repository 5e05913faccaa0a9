{% macro _cdc_kafka_offset_ranges(partitions, held) %}
    {#- The range of offsets a run reads from each Kafka partition. -#}
    {%- set ranges = [] -%}
    {%- for partition in partitions -%}
        {%- set last = held.get(partition.topic ~ '|' ~ partition.partition) -%}
        {%- set start = partition.earliest if last is none else [last + 1, partition.earliest] | max -%}
        {%- do ranges.append({
            'topic': partition.topic, 'partition': partition.partition,
            'start': [start, partition.end] | min, 'end': partition.end
        }) -%}
    {%- endfor -%}
    {{ return(ranges) }}
{% endmacro %}
