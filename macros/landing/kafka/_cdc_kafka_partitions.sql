{% macro _cdc_kafka_partitions(settings) %}
    {#-
        Every partition of the Kafka landing's topics, with its earliest and end offsets.
        Asked once when bronze's run starts, through the helper compiled at set-up
        (cdc_tools/jvm/CdcKafkaOffsets.java, on `spark.jars`), which opens a consumer with
        the same properties as Spark's reader. The end offsets it returns fix the run's
        range: messages produced later wait for the next run. Returns a list of
        {'topic', 'partition', 'earliest', 'end'}, sorted by topic and partition.
    -#}
    {%- set lines = [] -%}
    {%- for name, value in settings.options.items() | sort -%}
        {%- do lines.append(name ~ '=' ~ value.replace('\\', '\\\\').replace('\n', '\\n')) -%}
    {%- endfor -%}
    {%- set query -%}
        select reflect(
            'cdc.kafka.CdcKafkaOffsets',
            'partitionOffsets',
            '{{ cdc_lakehouse._cdc_escape_string(lines | join('\n')) }}',
            '{{ cdc_lakehouse._cdc_escape_string(settings.topics | join(',')) }}',
            '{{ cdc_lakehouse._cdc_escape_string(settings.pattern) }}'
        ) as partition_offsets
    {%- endset -%}
    {%- set answer = run_query(query).columns[0].values()[0] or '' -%}
    {%- set partitions = [] -%}
    {%- for line in answer.split('\n') if line -%}
        {%- set fields = line.split('\t') -%}
        {%- do partitions.append({
            'topic': fields[0], 'partition': fields[1] | int,
            'earliest': fields[2] | int, 'end': fields[3] | int
        }) -%}
    {%- endfor -%}
    {{ return(partitions) }}
{% endmacro %}
