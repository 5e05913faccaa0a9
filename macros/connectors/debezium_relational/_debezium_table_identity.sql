{% macro _debezium_table_identity(source, schema_name, topic, is_change='true') %}
    {#- `named_struct(db, schema, table)` of a Debezium message. -#}
    {%- set from_schema_name -%}
        case
            when {{ schema_name }} like '%.Envelope' and size(split({{ schema_name }}, '[.]')) >= 4
                then split({{ schema_name }}, '[.]')
        end
    {%- endset -%}
    {%- set from_topic -%}
        case
            when size(split({{ topic }}, '[.]')) >= 3 then named_struct(
                'db', {{ source }}.db,
                'schema', try_element_at(split({{ topic }}, '[.]'), -2),
                'table', try_element_at(split({{ topic }}, '[.]'), -1)
            )
        end
    {%- endset -%}
    case
        when {{ source }}.table is not null then named_struct(
            'db', {{ source }}.db, 'schema', {{ source }}.schema, 'table', {{ source }}.table
        )
        when {{ from_schema_name }} is not null then named_struct(
            'db', {{ source }}.db,
            'schema', try_element_at({{ from_schema_name }}, -3),
            'table', try_element_at({{ from_schema_name }}, -2)
        )
        when {{ is_change }} then {{ cdc_lakehouse._cdc_topic_identity(topic, source ~ '.db', from_topic) }}
        else named_struct(
            'db', {{ source }}.db,
            'schema', ({{ from_topic }}).schema,
            'table', ({{ from_topic }}).table
        )
    end
{% endmacro %}

{% macro _debezium_kafka_key(message) %}
    {#- The canonical key of a Debezium record's Kafka key, null without one. -#}
    {%- set key_map = cdc_lakehouse._cdc_json_map(
        'case when ' ~ message ~ '.key_envelope.schema is not null then '
        ~ message ~ '.key_envelope.payload else ' ~ message ~ '.message_key end'
    ) -%}
    {{ cdc_lakehouse._cdc_canonical_json_map(key_map, folded=true) }}
{% endmacro %}
