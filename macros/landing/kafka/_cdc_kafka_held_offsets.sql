{% macro _cdc_kafka_held_offsets(bronze_relation) %}
    {#-
        The last offset bronze holds of each Kafka partition it read directly.
        Bronze is the Kafka landing's only record of what it read: a run that failed before
        bronze's insert committed left no offset, and the next one reads its range again.
        Only records read from Kafka count (`_record_format` 'kafka'), not those of files:
        a sink's files of the same topic do not move the reader. Returns a mapping
        'topic|partition' -> offset; empty when `bronze_relation` is none (its first run).
    -#}
    {%- set held = {} -%}
    {%- if bronze_relation is none -%}
        {{ return(held) }}
    {%- endif -%}
    {%- set query -%}
        select _kafka_topic, _kafka_partition, max(_kafka_offset) as last_offset
        from {{ bronze_relation }}
        where _record_format = 'kafka'
        group by _kafka_topic, _kafka_partition
    {%- endset -%}
    {%- for row in run_query(query) -%}
        {%- do held.update({row[0] ~ '|' ~ row[1]: row[2] | int}) -%}
    {%- endfor -%}
    {{ return(held) }}
{% endmacro %}
