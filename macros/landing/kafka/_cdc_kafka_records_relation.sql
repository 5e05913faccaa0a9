{% macro _cdc_kafka_records_relation(settings, ranges) %}
    {#- Registers a temporary view of the Kafka records of `ranges`, read in batch. -#}
    {%- if ranges | map(attribute='end') | sum <= ranges | map(attribute='start') | sum -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set assign, starting, ending = {}, {}, {} -%}
    {%- for range in ranges -%}
        {%- do assign.setdefault(range.topic, []).append(range.partition) -%}
        {%- do starting.setdefault(range.topic, {}).update({range.partition | string: range.start}) -%}
        {%- do ending.setdefault(range.topic, {}).update({range.partition | string: range.end}) -%}
    {%- endfor -%}
    {%- set view_name = '_cdc_new_kafka_records' -%}
    {%- call statement('cdc_register_kafka_records_view', fetch_result=False) -%}
        create or replace temporary view {{ view_name }}
        using kafka
        options (
            {%- for name, value in settings.options.items() | sort %}
            `kafka.{{ name }}` '{{ cdc_lakehouse._cdc_escape_string(value) }}',
            {%- endfor %}
            assign '{{ cdc_lakehouse._cdc_escape_string(tojson(assign)) }}',
            startingoffsets '{{ cdc_lakehouse._cdc_escape_string(tojson(starting)) }}',
            endingoffsets '{{ cdc_lakehouse._cdc_escape_string(tojson(ending)) }}',
            includeheaders 'true',
            failondataloss 'false'
        )
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_invocation_cache('landing_views').update({view_name: true}) -%}
    {{ return(view_name) }}
{% endmacro %}
