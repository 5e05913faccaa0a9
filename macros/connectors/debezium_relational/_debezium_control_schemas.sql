{% macro _cdc_transaction_schema() %}
    {#- from_json schema of a Debezium transaction metadata event, wrapped or not. -#}
    {%- set fields = 'status: string, id: string, event_count: string, ts_ms: string, '
        ~ 'data_collections: array<struct<data_collection: string, event_count: string>>' -%}
    {{- return('struct<payload: struct<' ~ fields ~ '>, ' ~ fields ~ '>') -}}
{% endmacro %}

{% macro _cdc_schema_change_schema() %}
    {#- from_json schema of a Debezium schema-change event, wrapped or not. -#}
    {%- set fields = 'databaseName: string, schemaName: string, ddl: string, '
        ~ 'source: struct<ts_ms: string>, '
        ~ 'tableChanges: array<struct<type: string, id: string, table: struct<'
        ~ 'primaryKeyColumnNames: array<string>, columns: array<struct<name: string, '
        ~ 'jdbcType: string, typeName: string, length: string, scale: string, '
        ~ 'position: string, optional: string, autoIncremented: string, '
        ~ 'generated: string>>>>>' -%}
    {{- return('struct<payload: struct<' ~ fields ~ '>, ' ~ fields ~ '>') -}}
{% endmacro %}
