{% macro _debezium_kafka_key(message) %}
    {#- The canonical key of a Debezium record's Kafka key, null without one. -#}
    {%- set key_map = cdc_lakehouse._cdc_json_map(
        'case when ' ~ message ~ '.key_envelope.schema is not null then '
        ~ message ~ '.key_envelope.payload else ' ~ message ~ '.message_key end'
    ) -%}
    {{ cdc_lakehouse._cdc_canonical_json_map(key_map, folded=true) }}
{% endmacro %}
