{% macro _debezium_column_types(fields) %}
    {#-
        Kafka Connect field schemas by column name.
        `fields` (SQL: an array of Kafka Connect field schemas, the row's columns) as a map by
        column name as _cdc_json_map writes it (_cdc_fold_names) to struct<type, name, scale,
        precision>. An array column has type `array` and its elements' name, scale and
        precision (its `items` schema), so that its elements decode as their scalar twins.
    -#}
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
