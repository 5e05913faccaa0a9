{% macro cdc_drop_bronze() -%}
    {%- set bronze = api.Relation.create(
        database=none,
        schema=generate_schema_name('bronze', none),
        identifier='bronze_cdc_messages',
        type='table') -%}
    {%- set relation = load_relation(bronze) -%}
    {%- set loaded_files = load_relation(cdc_lakehouse._cdc_loaded_files_relation(bronze)) -%}
    {%- if loaded_files is not none -%}
        {%- do adapter.drop_relation(loaded_files) -%}
    {%- endif -%}
    {%- if relation is none -%}
        {{ log("No bronze table to drop.", info=True) }}
    {%- else -%}
        {{ adapter.drop_relation(relation) }}
        {{ log("Dropped " ~ relation ~ "; the next run reloads every landing file.", info=True) }}
    {%- endif -%}
{% endmacro %}
