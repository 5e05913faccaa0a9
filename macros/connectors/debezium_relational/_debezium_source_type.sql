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

{% macro _debezium_column_types(fields) %}
    {#- Kafka Connect field schemas by column name. -#}
    {%- set by_name -%}
    map_from_arrays(
        {{ cdc_lakehouse._cdc_fold_names('transform(schema_columns, f -> f.field)') }},
        transform(
            schema_columns,
            f -> named_struct(
                'type', f.type,
                'name', if(f.type = 'array', f.items.name, f.name),
                'scale', if(f.type = 'array', f.items.parameters, f.parameters)['scale'],
                'precision', if(f.type = 'array', f.items.parameters, f.parameters)['connect.decimal.precision']
            )
        )
    )
    {%- endset -%}
    {{ cdc_lakehouse._cdc_let(fields, 'schema_columns', by_name) }}
{% endmacro %}

{% macro _debezium_has_position(source) %}
    {#- SQL boolean: the `source` block carries a source position field. -#}
    coalesce(
        {{ source }}.commit_scn, {{ source }}.scn, {{ source }}.rs_id, {{ source }}.ssn,
        {{ source }}.change_lsn, {{ source }}.commit_lsn, {{ source }}.event_serial_no,
        {{ source }}.lsn, {{ source }}.file, {{ source }}.pos, {{ source }}.commit_ts
    ) is not null
{% endmacro %}

{% macro _debezium_is_snapshot(source) %}
    {#- SQL boolean: the `source` block marks a snapshot read. -#}
    coalesce(lower({{ source }}.snapshot) not in ('false', ''), false)
{% endmacro %}

{% macro _debezium_connector(source, locator=none) %}
    {#- Which Debezium relational connector wrote a message. -#}
    {%- set accepted = ['oracle', 'sqlserver', 'db2', 'postgresql', 'mysql', 'ticdc', 'debezium'] -%}
    {%- set overrides = cdc_lakehouse.cdc_var('cdc_connector_overrides') -%}
    case
    {%- for override in overrides %}
        {%- if override.get('connector') not in accepted or not override.get('pattern') -%}
            {{ exceptions.raise_compiler_error(
                "cdc_connector_overrides entry " ~ override ~ " needs a `pattern` and a "
                ~ "`connector` among: " ~ accepted | join(', ')
            ) }}
        {%- endif %}
        when {{ locator }} rlike '{{ cdc_lakehouse._cdc_escape_string(override['pattern']) }}'
            then '{{ override['connector'] }}'
    {%- endfor %}
        when lower({{ source }}.connector) = 'mariadb' then 'mysql'
        when {{ source }}.connector is not null then lower({{ source }}.connector)
        when {{ source }}.commit_scn is not null
            or {{ source }}.scn is not null
            or {{ source }}.rs_id is not null then 'oracle'
        when {{ source }}.event_serial_no is not null then 'sqlserver'
        when {{ source }}.change_lsn is not null
            or {{ source }}.commit_lsn is not null then 'db2'
        when {{ source }}.lsn is not null then 'postgresql'
        when {{ source }}.file is not null and {{ source }}.pos is not null then 'mysql'
        when not {{ cdc_lakehouse._debezium_has_position(source) }} then 'debezium'
    end
{% endmacro %}
