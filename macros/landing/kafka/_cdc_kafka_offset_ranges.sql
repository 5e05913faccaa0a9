{% macro _cdc_kafka_offset_ranges(partitions, held) %}
    {#-
        The range of offsets a run reads from each Kafka partition.
        From the offset after the last one bronze
        holds (`held`, _cdc_kafka_held_offsets) up to the end offset fixed when the run
        started. A partition bronze holds nothing of (new, or a new topic) starts at its
        earliest offset. When retention removed offsets bronze never read, the range starts
        at the earliest one kept: the offsets between are missing from bronze, and
        cdc_delivery_gaps reports them once a later offset of the partition has landed.
        Returns every partition (Spark's reader needs all of them named) as
        {'topic', 'partition', 'start', 'end'}; start = end reads nothing.
    -#}
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
