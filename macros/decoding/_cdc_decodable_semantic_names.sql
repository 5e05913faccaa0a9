{% macro _cdc_decodable_semantic_names() %}
    {#- The semantic type names whose values _cdc_decode_semantic_text decodes. -#}
    {{ return([
        'org.apache.kafka.connect.data.Decimal',
        'io.debezium.data.VariableScaleDecimal',
        'io.debezium.time.Date',
        'org.apache.kafka.connect.data.Date',
        'io.debezium.time.Time',
        'org.apache.kafka.connect.data.Time',
        'io.debezium.time.MicroTime',
        'io.debezium.time.NanoTime',
        'io.debezium.time.Timestamp',
        'org.apache.kafka.connect.data.Timestamp',
        'io.debezium.time.MicroTimestamp',
        'io.debezium.time.NanoTimestamp',
    ]) }}
{% endmacro %}
