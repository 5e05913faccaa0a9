{% macro _cdc_transaction_schema() %}
    {#- from_json schema of a Debezium transaction metadata event, wrapped or not. -#}
    {%- set fields = 'status: string, id: string, event_count: bigint, ts_ms: bigint, '
        ~ 'data_collections: array<struct<data_collection: string, event_count: bigint>>' -%}
    {{- return('struct<payload: struct<' ~ fields ~ '>, ' ~ fields ~ '>') -}}
{% endmacro %}

{% macro _cdc_schema_change_schema() %}
    {#- from_json schema of a Debezium schema-change event, wrapped or not. -#}
    {%- set fields = 'databaseName: string, schemaName: string, ddl: string, '
        ~ 'source: struct<ts_ms: bigint>, '
        ~ 'tableChanges: array<struct<type: string, id: string, table: struct<'
        ~ 'primaryKeyColumnNames: array<string>, columns: array<struct<name: string, '
        ~ 'jdbcType: int, typeName: string, length: int, scale: int, position: int, '
        ~ 'optional: boolean, autoIncremented: boolean, generated: boolean>>>>>' -%}
    {{- return('struct<payload: struct<' ~ fields ~ '>, ' ~ fields ~ '>') -}}
{% endmacro %}
