{% macro _debezium_source_type() %}
    {#- The type of the `source` block of every Debezium connector. -#}
    {{- return(
        'struct<version: string, connector: string, name: string, ts_ms: string, '
        ~ 'snapshot: string, db: string, schema: string, table: string, '
        ~ 'txId: string, scn: string, commit_scn: string, rs_id: string, ssn: string, '
        ~ 'redo_thread: string, '
        ~ 'change_lsn: string, commit_lsn: string, event_serial_no: string, '
        ~ 'lsn: string, file: string, pos: string, row: string, server_id: string, '
        ~ 'gtid: string, sequence: string, rs: string, collection: string, ord: string, '
        ~ 'h: string, lsid: string, txnNumber: string, wallTime: string, commit_ts: string>'
    ) -}}
{% endmacro %}

{% macro _debezium_schema_fields() %}
    {#- The Kafka Connect schema of a wrapped message: enough to decode column values. -#}
    {%- set column = 'type: string, name: string, parameters: map<string, string>, '
        ~ 'items: struct<type: string, name: string, parameters: map<string, string>>' -%}
    {{- return({
        'name': 'string',
        'fields': 'array<struct<field: string, ' ~ column ~ ', '
            ~ 'fields: array<struct<field: string, ' ~ column ~ '>>>>',
    }) -}}
{% endmacro %}
