{% macro cdc_is_incremental() %}
    {#-
        dbt's is_incremental() for the project's materializations: true when the model's
        table exists, is materialized as `cdc_incremental` (or `incremental`, which is
        cdc_incremental in this project: macros/materializations/incremental.sql) and the
        run is no full refresh. dbt's own is_incremental() is true for `incremental` alone,
        the materialization a package may not override in a project that installs it.
    -#}
    {%- if not execute -%}
        {{ return(false) }}
    {%- endif -%}
    {%- if model.config.materialized not in ['cdc_incremental', 'incremental'] or should_full_refresh() -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set relation = adapter.get_relation(this.database, this.schema, this.table) -%}
    {{ return(relation is not none and relation.type == 'table') }}
{% endmacro %}
