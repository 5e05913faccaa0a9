{% macro _cdc_write_rebuild(plan, sql) %}
  {#-
      Write path `rebuild`: the state table created from the whole change log.
      Write path `rebuild` (a full refresh, or no state yet): the state table created from
      the whole change log in one statement, and a new runs table.
  -#}
  {%- set cdc = plan.cdc -%}
  {#- what the relation cache does not have needs no drop -#}
  {{ cdc_lakehouse._cdc_drop_if_present(plan.state_relation) }}
  {%- do cdc_lakehouse._cdc_forget_relation(plan.state_relation) -%}
  {{ cdc_lakehouse._cdc_drop_if_present(plan.runs_relation) }}
  {{ cdc_lakehouse._cdc_drop_if_present(plan.staging_relation) }}
  {#- one pass over the change log: the watermark, and whether the carry-over could change
      any row (when not, the build leaves it out) -#}
  {%- set carry_count = "0" -%}
  {%- if plan.carry is not none -%}
    {%- set carry_count = "count_if(" ~ ("_cdc_error_reason is null and " if plan.readable_only else "")
          ~ cdc_lakehouse._cdc_carry_needed_condition(plan.carry) ~ ")" -%}
  {%- endif -%}
  {%- set first_pass = run_query(
        "select cast(max(_loaded_at) as string), " ~ carry_count ~ " from (" ~ sql ~ ")").rows[0] -%}
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
          plan.state_columns, cdc.unique_key, none, cdc.buckets, cdc.retention_days,
          plan.carry if first_pass[1] | int > 0 else none) }}
  {% endcall %}
  {{ cdc_lakehouse._cdc_create_runs_table(plan.runs_relation) }}
  {{ cdc_lakehouse._cdc_record_run(plan.runs_relation, first_pass[0], 'applied', 'full') }}
{% endmacro %}
