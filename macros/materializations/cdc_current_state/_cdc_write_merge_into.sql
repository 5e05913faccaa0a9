{% macro _cdc_write_merge_into(plan, sql) %}
  {#- Write path `merge_into` (delta, iceberg, hudi). -#}
  {%- set cdc = plan.cdc -%}
  {%- set watermark = cdc_lakehouse._cdc_resume_interrupted_run(plan) -%}
  {%- set questions = {
        'expired_tombstones': "select count(*) from " ~ plan.state_relation
            ~ " where cdc_bucket >= 0 and _cdc_is_deleted and _loaded_at < current_timestamp() - make_dt_interval("
            ~ cdc.retention_days ~ ")",
  } -%}
  {%- set batch = cdc_lakehouse._cdc_new_changes(
        plan, sql, watermark, batch_relation=plan.batch_relation, questions=questions) -%}
  {%- if batch.loaded_through is none -%}
    {{ cdc_lakehouse._cdc_main_unchanged('no new changes') }}
    {{ return('') }}
  {%- endif -%}
  {#- Delta's change data feed (config cdc_change_data_feed) on a state built without it -#}
  {%- if cdc.change_data_feed and cdc.file_format == 'delta'
        and cdc_lakehouse._cdc_table_properties(plan.state_relation).get('delta.enableChangeDataFeed') != 'true' -%}
    {% call statement('cdc_enable_change_data_feed') %}
      alter table {{ plan.state_relation }} set tblproperties ('delta.enableChangeDataFeed' = 'true')
    {% endcall %}
    {%- do cdc_lakehouse._cdc_remember_properties(plan.state_relation, {'delta.enableChangeDataFeed': 'true'}) -%}
  {%- endif -%}
  {%- for statement_sql in cdc_lakehouse._cdc_merge_into_statements(
        batch.sql, plan.state_columns, cdc.unique_key, plan.state_relation, cdc.buckets,
        cdc.retention_days, source_relation=plan.staging_relation,
        truncates=batch.truncates > 0,
        purge=batch.answers['expired_tombstones'] | int > 0,
        source_exists=cdc_lakehouse._cdc_existing(plan.staging_relation) is not none) -%}
    {% call statement('main' if loop.last else 'cdc_merge_' ~ loop.index) %}
      {{ statement_sql }}
    {% endcall %}
  {%- endfor -%}
  {%- set run_record = cdc_lakehouse._cdc_run_properties(plan.state_relation, batch.loaded_through, 'applied', 'merge') -%}
  {%- do plan.update({'run_record': run_record}) -%}
{% endmacro %}
