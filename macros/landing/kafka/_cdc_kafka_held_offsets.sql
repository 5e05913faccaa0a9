{% macro _cdc_kafka_held_offsets(bronze_relation) %}
    {#- The last offset bronze holds of each Kafka partition it read directly. -#}
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
