{% macro _cdc_kafka_partitions(settings) %}
    {#- Every partition of the Kafka landing's topics, with its earliest and end offsets. -#}
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
