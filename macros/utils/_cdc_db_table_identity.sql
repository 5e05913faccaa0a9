{% macro _cdc_db_table_identity(db, table, topic) %}
    {#-
        `named_struct(db, schema, table)` of a format naming a database and a table.
        `named_struct(db, schema, table)` of a format that names its table as a database and
        a table (Canal, Maxwell): those two (no schema) when the message names its table,
        else its topic's (_cdc_topic_identity, with `db` as the database): Flink SQL's
        canal-json and maxwell-json writers name neither.
    -#}
    case
        when {{ table }} is not null then named_struct(
            'db', {{ db }}, 'schema', cast(null as string), 'table', {{ table }}
        )
        else {{ cdc_lakehouse._cdc_topic_identity(topic, db) }}
    end
{% endmacro %}
