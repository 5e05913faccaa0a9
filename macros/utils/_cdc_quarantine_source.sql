{% macro _cdc_quarantine_source(source_id='_cdc_source_id', topic='_kafka_topic', file='_source_file') %}
    {#-
        The source a quarantined message belongs to: SQL expressions `kind` and `name`.
        Its table (`_cdc_source_id`; kind `table`) when silver read one; else, for a message
        whose table could not be read, the Kafka topic it came from (kind `topic`: a kcat or
        Kafka record's topic, or the topic a Kafka Connect sink file's name carries,
        _cdc_sink_file_coordinates); else its landing file (kind `file`). Silver writes an
        empty `_cdc_source_id` for a message without a table. cdc_quarantine_summary and
        assert_no_new_quarantined_messages name a message's source so (docs/quarantine.md,
        "What a source is").
    -#}
    {{ return({
        'kind': "case when nullif(" ~ source_id ~ ", '') is not null then 'table'\n"
            ~ "            when " ~ topic ~ " is not null then 'topic' else 'file' end",
        'name': "coalesce(nullif(" ~ source_id ~ ", ''), " ~ topic ~ ", " ~ file ~ ")"
    }) }}
{% endmacro %}
