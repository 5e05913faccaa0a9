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
