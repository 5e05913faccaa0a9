{% macro _cdc_quarantine_source(source_id='_cdc_source_id', topic='_kafka_topic', file='_source_file') %}
    {#- The source a quarantined message belongs to: SQL expressions `kind` and `name`. -#}
    {{ return({
        'kind': "case when nullif(" ~ source_id ~ ", '') is not null then 'table'\n"
            ~ "            when " ~ topic ~ " is not null then 'topic' else 'file' end",
        'name': "coalesce(nullif(" ~ source_id ~ ", ''), " ~ topic ~ ", " ~ file ~ ")"
    }) }}
{% endmacro %}
