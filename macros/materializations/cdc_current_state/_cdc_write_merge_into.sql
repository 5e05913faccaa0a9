{% macro _cdc_write_merge_into(plan, sql) %}
  {#-
      Write path `merge_into` (delta, iceberg, hudi).
      The batch is written once (plan.batch_relation, as on parquet) and merged into the
      state table by the statements of _cdc_merge_into_statements, whose upsert reads its
      source from plan.staging_relation. Each MERGE is atomic and a replayed batch changes
      nothing, so a killed run is simply run again.
  -#}
  {%- set cdc = plan.cdc -%}
  {{ cdc_lakehouse._cdc_create_runs_table(plan.runs_relation) }}
  {%- set batch = cdc_lakehouse._cdc_new_changes(plan, sql, batch_relation=plan.batch_relation) -%}
  {%- if batch.loaded_through is none -%}
    {{ adapter.drop_relation(plan.batch_relation) }}
    {% call statement('main') %}
      select 'no new changes' as cdc_status
    {% endcall %}
    {{ return('') }}
  {%- endif -%}
  {#- Delta's change data feed (config cdc_change_data_feed) on a state built without it -#}
  {%- if cdc.change_data_feed and cdc.file_format == 'delta'
        and cdc_lakehouse._cdc_table_properties(plan.state_relation).get('delta.enableChangeDataFeed') != 'true' -%}
    {% call statement('cdc_enable_change_data_feed') %}
      alter table {{ plan.state_relation }} set tblproperties ('delta.enableChangeDataFeed' = 'true')
    {% endcall %}
    {%- do cdc_lakehouse._cdc_forget_relation(plan.state_relation) -%}
  {%- endif -%}
  {#- the carry-over only when it could change something (as on parquet) -#}
  {%- set carry = cdc_lakehouse._cdc_carry_for_batch(plan, batch.sql).carry -%}
  {%- for statement_sql in cdc_lakehouse._cdc_merge_into_statements(
        batch.sql, plan.state_columns, cdc.unique_key, plan.state_relation, cdc.buckets,
        cdc.retention_days, carry, source_relation=plan.staging_relation) -%}
    {% call statement('main' if loop.last else 'cdc_merge_' ~ loop.index) %}
      {{ statement_sql }}
    {% endcall %}
  {%- endfor -%}
  {{ cdc_lakehouse._cdc_record_run(plan.runs_relation, batch.loaded_through, 'applied', 'merge') }}
  {{ adapter.drop_relation(plan.batch_relation) }}
{% endmacro %}
