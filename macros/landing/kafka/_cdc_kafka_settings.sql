{% macro _cdc_kafka_settings() %}
    {#- The Kafka landing's settings, from vars; none when bronze reads no Kafka. -#}
    {%- set servers = cdc_lakehouse.cdc_var('cdc_kafka_bootstrap_servers') -%}
    {%- if not servers -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set topics = cdc_lakehouse.cdc_var('cdc_kafka_topics') -%}
    {%- set topics = topics.split(',') if topics is string else (topics or []) -%}
    {%- set topics = topics | map('trim') | reject('equalto', '') | list -%}
    {%- set pattern = cdc_lakehouse.cdc_var('cdc_kafka_topic_pattern') or '' -%}
    {%- if not topics and not pattern -%}
        {{ exceptions.raise_compiler_error(
            'cdc_kafka_bootstrap_servers is set: set cdc_kafka_topics or cdc_kafka_topic_pattern too'
        ) }}
    {%- endif -%}
    {%- set options = {'bootstrap.servers': servers} -%}
    {%- for name, value in (cdc_lakehouse.cdc_var('cdc_kafka_options') or {}).items() -%}
        {%- do options.update({name[6:] if name.startswith('kafka.') else name: value | string}) -%}
    {%- endfor -%}
    {{ return({'options': options, 'topics': topics, 'pattern': pattern}) }}
{% endmacro %}
