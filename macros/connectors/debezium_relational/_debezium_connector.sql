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
