{% macro _cdc_db_table_identity(db, table, topic) %}
    {#- `named_struct(db, schema, table)` of a format naming a database and a table. -#}
    case
        when {{ table }} is not null then named_struct(
            'db', {{ db }}, 'schema', cast(null as string), 'table', {{ table }}
        )
        else {{ cdc_lakehouse._cdc_topic_identity(topic, db) }}
    end
{% endmacro %}
