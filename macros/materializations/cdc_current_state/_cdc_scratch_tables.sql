{% macro _cdc_existing(relation) %}
  {#- The relation as the invocation's relation cache knows it, or none. -#}
  {{ return(adapter.get_relation(
      database=relation.database, schema=relation.schema, identifier=relation.identifier)) }}
{% endmacro %}

{% macro _cdc_drop_if_present(relation) %}
  {#- Drops a scratch table of the run when the relation cache has it (no statement when not). -#}
  {%- set existing = cdc_lakehouse._cdc_existing(relation) -%}
  {%- if existing is not none -%}
    {{ adapter.drop_relation(existing) }}
  {%- endif -%}
{% endmacro %}

{% macro _cdc_ensure_scratch(relation, sql) %}
  {#- Creates a scratch table of the model unless it exists. -#}
  {%- if cdc_lakehouse._cdc_existing(relation) is none -%}
    {% call statement('cdc_create_scratch') %}
      create table {{ relation }} using parquet as {{ sql }} limit 0
    {% endcall %}
  {%- endif -%}
{% endmacro %}

{% macro _cdc_overwrite_scratch(relation, columns, sql, statement_name='cdc_write_scratch') %}
  {#- Replaces the rows of a kept scratch table by a query's, in one statement. -#}
  {% call statement(statement_name) %}
    insert overwrite table {{ relation }} ({{ cdc_lakehouse._cdc_quote_list(columns) }})
    {{ sql }}
  {% endcall %}
{% endmacro %}

{% macro _cdc_stage(plan, staged_sql) %}
  {#- Writes the new content of some state partitions to the staging table. -#}
  {{ cdc_lakehouse._cdc_ensure_scratch(plan.staging_relation, "select * from " ~ plan.state_relation) }}
  {{ cdc_lakehouse._cdc_overwrite_scratch(plan.staging_relation, plan.state_columns + ['_cdc_is_deleted', 'cdc_bucket'], staged_sql, 'cdc_stage') }}
{% endmacro %}
