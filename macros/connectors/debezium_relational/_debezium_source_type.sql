{% macro _debezium_source_type() %}
    {#-
        The type of the `source` block of every Debezium connector.
        The `source` block of every Debezium connector, as one struct of strings (a JSON
        number or boolean read as a string keeps its text: `false` -> 'false', 1 -> '1').
        Oracle: scn, commit_scn, txId, rs_id, ssn, redo_thread; SQL Server: change_lsn,
        commit_lsn, event_serial_no; Db2: change_lsn, commit_lsn; PostgreSQL: lsn, txId;
        MySQL: file, pos, row, server_id, gtid; TiCDC: commit_ts; MongoDB: rs, collection,
        ord, h.
    -#}
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
    {#-
        The Kafka Connect schema of a wrapped message: enough to decode column values.
        The Kafka Connect schema of a wrapped message, enough to decode column values: an
        envelope's fields (`after`) and their fields, or a flattened record's fields (the
        row's columns at top level), each with its type, semantic name, parameters and, for
        an array, its `items` schema.
    -#}
    {%- set column = 'type: string, name: string, parameters: map<string, string>, '
        ~ 'items: struct<type: string, name: string, parameters: map<string, string>>' -%}
    {{- return({
        'name': 'string',
        'fields': 'array<struct<field: string, ' ~ column ~ ', '
            ~ 'fields: array<struct<field: string, ' ~ column ~ '>>>>',
    }) -}}
{% endmacro %}
