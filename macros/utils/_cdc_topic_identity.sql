{% macro _cdc_topic_identity(topic, db=none, conventional=none) %}
    {#- `named_struct(db, schema, table)` of a message from its Kafka topic. -#}
    {%- set mapped = cdc_lakehouse.cdc_var('cdc_topic_tables') -%}
    {%- set db_sql = db if db is not none else 'cast(null as string)' -%}
    case
    {%- for name, identity in mapped.items() %}
        {%- set parts = (identity | string).split('.') -%}
        {%- if parts | length not in (2, 3) or '' in parts -%}
            {{ exceptions.raise_compiler_error(
                "var cdc_topic_tables: topic '" ~ name ~ "' maps to '" ~ identity
                ~ "', which is not database.table or database.schema.table"
            ) }}
        {%- endif %}
        when {{ topic }} = '{{ cdc_lakehouse._cdc_escape_string(name) }}' then named_struct(
            'db', '{{ cdc_lakehouse._cdc_escape_string(parts[0]) }}',
            'schema', {{ "'" ~ cdc_lakehouse._cdc_escape_string(parts[1]) ~ "'" if parts | length == 3 else 'cast(null as string)' }},
            'table', '{{ cdc_lakehouse._cdc_escape_string(parts[-1]) }}'
        )
    {%- endfor %}
    {%- if conventional is not none %}
        when {{ conventional }} is not null then {{ conventional }}
    {%- endif %}
        when {{ topic }} is not null then named_struct(
            'db', {{ db_sql }}, 'schema', cast(null as string), 'table', {{ topic }}
        )
    end
{% endmacro %}

{% macro _cdc_db_table_identity(db, table, topic) %}
    {#- `named_struct(db, schema, table)` of a format naming a database and a table. -#}
    case
        when {{ table }} is not null then named_struct(
            'db', {{ db }}, 'schema', cast(null as string), 'table', {{ table }}
        )
        else {{ cdc_lakehouse._cdc_topic_identity(topic, db) }}
    end
{% endmacro %}
