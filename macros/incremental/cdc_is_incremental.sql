{% macro cdc_is_incremental() -%}
    {%- if not execute -%}
        {{ return(false) }}
    {%- endif -%}
    {%- if model.config.materialized not in ['cdc_incremental', 'incremental'] or should_full_refresh() -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set relation = adapter.get_relation(this.database, this.schema, this.table) -%}
    {{ return(relation is not none and relation.type == 'table') }}
{% endmacro %}
