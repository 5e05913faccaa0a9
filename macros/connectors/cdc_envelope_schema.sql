{% macro cdc_envelope_schema() %}
    {#-
        The one `from_json` schema every landing message is parsed with, so that each
        message is parsed once whatever its envelope. Nested row images (`before`,
        `after`) are kept as raw JSON text (`string`): they are decoded per table, by
        the table's column contract. Scalars are read as strings too (a JSON number or
        boolean keeps its text) and cast where used: a field of an unexpected JSON type
        must not make Spark discard the whole message as corrupt. Every connector family adds its own fields in
        `_cdc_envelope_payload_fields()`; fields shared by name are typed alike.
    -#}
    {%- set payload = _cdc_envelope_payload_fields() -%}
    {{- return(
        'struct<'
        ~ 'schema: ' ~ _debezium_schema_type() ~ ', '
        ~ 'payload: struct<' ~ payload ~ '>, '
        ~ payload ~ ', '
        ~ '_corrupt_record: string'
        ~ '>'
    ) -}}
{% endmacro %}

{% macro _cdc_envelope_payload_fields() %}
    {{- return(
        'before: string, after: string, op: string, ts_ms: string, '
        ~ 'source: ' ~ debezium_source_type() ~ ', '
        ~ 'transaction: struct<id: string, total_order: string, data_collection_order: string>, '
        ~ 'status: string, id: string, event_count: string, '
        ~ 'databaseName: string, schemaName: string, ddl: string, tableChanges: string'
    ) -}}
{% endmacro %}
