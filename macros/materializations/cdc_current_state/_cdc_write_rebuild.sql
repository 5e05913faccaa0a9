{% macro _cdc_write_rebuild(plan, sql) %}
  {#- Write path `rebuild`: the state table created from the whole change log. -#}
  {%- set cdc = plan.cdc -%}
  {%- set existing_state = cdc_lakehouse._cdc_existing(plan.state_relation) -%}
  {%- set scratch_kept = false -%}
  {%- if existing_state is not none -%}
    {%- set old = cdc_lakehouse._cdc_table_properties(existing_state) -%}
    {%- set scratch_kept = old.get('cdc.run.loaded_through') is not none
          and old.get('cdc.model_columns') == plan.model_columns -%}
    {{ adapter.drop_relation(existing_state) }}
  {%- endif -%}
  {%- do cdc_lakehouse._cdc_forget_relation(plan.state_relation) -%}
  {{ cdc_lakehouse._cdc_drop_if_present(plan.runs_relation) }}
  {%- if not scratch_kept -%}
    {{ cdc_lakehouse._cdc_drop_if_present(plan.staging_relation) }}
    {{ cdc_lakehouse._cdc_drop_if_present(plan.batch_relation) }}
  {%- endif -%}
  {%- set loaded_through = run_query("select cast(max(_loaded_at) as string) from (" ~ sql ~ ")").rows[0][0] -%}
  {% call statement('main') %}
    create table {{ plan.state_relation }}
    using {{ cdc.file_format }}
    partitioned by (cdc_bucket)
    {%- if cdc.change_data_feed and cdc.file_format == 'delta' %}
    tblproperties ('delta.enableChangeDataFeed' = 'true')
    {%- endif %}
    as
    {{ cdc_lakehouse._cdc_state_merge_sql(
          "select * from (" ~ sql ~ ") as model_changes " ~ plan.readable_only,
          plan.state_columns, cdc.unique_key, none, cdc.buckets, cdc.retention_days) }}
  {% endcall %}
  {{ cdc_lakehouse._cdc_ensure_scratch(plan.batch_relation, cdc_lakehouse._cdc_batch_table_sql(plan, sql)) }}
  {{ cdc_lakehouse._cdc_ensure_scratch(plan.staging_relation, "select * from " ~ plan.state_relation) }}
  {%- set run_record = cdc_lakehouse._cdc_run_properties(plan.state_relation, loaded_through, 'applied', 'full') -%}
  {%- do plan.update({'run_record': run_record}) -%}
{% endmacro %}
