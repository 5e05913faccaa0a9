{% macro cdc_drop_bronze() %}
    {#-
        `dbt run-operation cdc_drop_bronze`: drop the bronze table so that the next run
        reloads every landing file (bronze ignores --full-refresh on purpose).
    -#}
    {%- set relation = adapter.get_relation(
        database=target.database,
        schema=generate_schema_name('bronze', none),
        identifier='bronze_cdc_messages') -%}
    {%- if relation is none -%}
        {{ log("No bronze table to drop.", info=True) }}
    {%- else -%}
        {{ adapter.drop_relation(relation) }}
        {{ log("Dropped " ~ relation ~ "; the next run reloads every landing file.", info=True) }}
    {%- endif -%}
{% endmacro %}
