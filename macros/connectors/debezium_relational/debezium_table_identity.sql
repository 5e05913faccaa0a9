{% macro debezium_table_identity(source, schema_name, topic) %}
    {#-
        `named_struct(db, schema, table)`: `source.db`; for schema and table `source.schema` / `source.table` when
        the source block names the table; otherwise both from the envelope's schema name
        `<server>.<schema>.<table>.Envelope` (schema wrapper), else from the topic
        `<server>[.<database>].<schema>.<table>`. The Debezium Oracle documentation's events
        carry neither db, schema nor table in their source block.
    -#}
    {%- set from_schema_name -%}
        case
            when {{ schema_name }} like '%.Envelope' and size(split({{ schema_name }}, '[.]')) >= 4
                then split({{ schema_name }}, '[.]')
        end
    {%- endset -%}
    {%- set from_topic -%}
        case when size(split({{ topic }}, '[.]')) >= 3 then concat(split({{ topic }}, '[.]'), array('')) end
    {%- endset -%}
    named_struct(
        'db', {{ source }}.db,
        'schema', case
            when {{ source }}.table is not null then {{ source }}.schema
            else try_element_at(coalesce({{ from_schema_name }}, {{ from_topic }}), -3)
        end,
        'table', case
            when {{ source }}.table is not null then {{ source }}.table
            else try_element_at(coalesce({{ from_schema_name }}, {{ from_topic }}), -2)
        end
    )
{% endmacro %}
