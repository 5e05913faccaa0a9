{% macro _cdc_write_merge_into(plan, sql) %}
  {#-
      Write path `merge_into` (delta, iceberg, hudi).
      The batch is merged into the state table by the statements of _cdc_merge_into_statements;
      a replayed batch changes nothing, so a killed run is simply run again.
  -#}
  {%- set cdc = plan.cdc -%}
  {{ cdc_lakehouse._cdc_create_runs_table(plan.runs_relation) }}
  {%- set batch = cdc_lakehouse._cdc_new_changes(plan, sql) -%}
  {%- if batch.loaded_through is none -%}
    {% call statement('main') %}
      select 'no new changes' as cdc_status
    {% endcall %}
  {%- else -%}
    {%- for statement_sql in cdc_lakehouse._cdc_merge_into_statements(
          batch.sql, plan.state_columns, cdc.unique_key, plan.state_relation, cdc.buckets,
          cdc.retention_days, plan.carry) -%}
      {% call statement('main' if loop.last else 'cdc_merge_' ~ loop.index) %}
        {{ statement_sql }}
      {% endcall %}
    {%- endfor -%}
    {{ cdc_lakehouse._cdc_record_run(plan.runs_relation, batch.loaded_through, 'applied', 'merge') }}
  {%- endif -%}
{% endmacro %}
