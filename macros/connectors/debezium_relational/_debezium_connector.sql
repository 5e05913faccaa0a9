{% macro _debezium_connector(source, locator=none) %}
    {#-
        Which Debezium relational connector wrote a message.
        It is read from the `source` block:
          1. an override of the project var `cdc_connector_overrides`, a list of
             {pattern: <regex>, connector: <name>} matched against `locator` (the Kafka
             topic, else the landing file path), for feeds whose messages say too little;
          2. `source.connector` when present (lower-cased: TiCDC's Debezium encoder writes
             `TiCDC`); Debezium's MariaDB connector (`mariadb`, a fork of the MySQL one:
             the same binlog position and value encodings) reads as `mysql`;
          3. the fields only one connector writes (the Oracle documentation example has no
             `connector`). SQL Server and Db2 share the LSN fields; without `connector`, a
             message with `event_serial_no` is SQL Server and one without is Db2 (both
             order alike);
          4. `debezium` when the source block carries no position field at all, or there
             is none (_debezium_has_position): a producer of the debezium-json format
             without source positions (Flink CDC's pipeline sink writes `{db, table}`,
             Flink SQL no source block). Its changes are ordered by arrival.
        Null when position fields match no connector: the message is quarantined, never
        guessed.
    -#}
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
