{% macro _cdc_data_collection_matches(qualified_name, data_collection) %}
    {#-
        SQL boolean: a transaction END's `data_collection` names the event's table.
        True when a transaction END's `data_collection` names the table of an event whose
        lower-cased qualified name (`db.schema.table`) is `qualified_name`: the same name,
        or its end (PostgreSQL writes `schema.table`, MySQL `db.table`).
    -#}
    ({{ qualified_name }} = {{ data_collection }}
        or {{ qualified_name }} like concat('%.', {{ data_collection }}))
{%- endmacro %}
