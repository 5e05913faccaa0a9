{% macro _cdc_is_signal_table(db_column, schema_column, table_column) %}
    {#- SQL boolean: the source table is a Debezium signal table. -#}
    {%- set entries = cdc_lakehouse.cdc_var('cdc_signal_tables') -%}
    {%- if entries is string or entries is mapping or entries is not iterable
            or entries | reject('string') | list -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_signal_tables must be a list of table names (`table`, `database.table` "
            ~ "or `database.schema.table`, glob patterns), got " ~ entries
        ) }}
    {%- endif -%}
    {%- set tests = [] -%}
    {%- for name in entries -%}
        {%- set parts = name.split('.') -%}
        {%- if parts | length > 3 or not parts[-1] -%}
            {{ exceptions.raise_compiler_error(
                "var cdc_signal_tables: '" ~ name ~ "' is not table, database.table or "
                ~ "database.schema.table"
            ) }}
        {%- endif -%}
        {%- do tests.append(cdc_lakehouse.cdc_source_matches(
            {
                'database': parts[0] if parts | length > 1 else '*',
                'schema': parts[1] if parts | length == 3 else '*',
                'table': parts[-1],
            },
            db_column, schema_column, table_column
        )) -%}
    {%- endfor -%}
    {{- '(' ~ (tests | join(' or ') if tests else 'false') ~ ')' -}}
{% endmacro %}
