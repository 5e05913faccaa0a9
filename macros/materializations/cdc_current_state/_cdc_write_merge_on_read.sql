{% macro _cdc_write_merge_on_read(plan, sql) %}
  {#-
      Write path `merge_on_read` (parquet).
      A batch goes to the delta partition, unless the delta would outgrow compaction_ratio x the
      compacted rows; then the batch and the delta are folded into the buckets they touch.
      Either is staged first and recorded (`staged`, then `applied`, in the state's table
      properties: _cdc_run_properties), so that a run killed in between is finished by the
      next one (_cdc_resume_interrupted_run). The `applied` record is set with the
      read-through, by cdc_current_state's last statement (the plan's `run_record`). The
      batch and staging tables are kept between runs and overwritten.
  -#}
  {%- set cdc = plan.cdc -%}
  {%- set watermark = cdc_lakehouse._cdc_resume_interrupted_run(plan) -%}
  {#- the batch is computed once, into plan.batch_relation, and read from there; one
      statement answers what the run asks about it and about the state -#}
  {%- set questions = cdc_lakehouse._cdc_state_counts_sql(plan.state_relation) -%}
  {%- set batch = cdc_lakehouse._cdc_new_changes(
        plan, sql, watermark, batch_relation=plan.batch_relation, questions=questions) -%}
  {%- if batch.loaded_through is none -%}
    {%- do plan.update({'run_record': cdc_lakehouse._cdc_state_checks(plan, none, 'none')}) -%}
    {{ cdc_lakehouse._cdc_main_unchanged('no new changes') }}
    {{ return('') }}
  {%- endif -%}
  {%- set counts = {'compacted': batch.answers['compacted'] | int, 'delta': batch.answers['delta'] | int} -%}
  {%- set kind = 'compaction' if counts['delta'] + batch.rows > cdc.compaction_ratio * counts['compacted']
        else 'delta' -%}
  {%- set carried = cdc_lakehouse._cdc_carry_for_batch(plan, batch.sql, batch.answers.get('carry_needed')) -%}
  {%- set carry = carried.carry -%}
  {%- set changes_sql = carried.changes_sql -%}
  {%- if kind == 'compaction' -%}
    {%- set merge_sql = cdc_lakehouse._cdc_state_merge_sql -%}
    {%- set merge_args = [
          changes_sql ~ " union all select " ~ cdc_lakehouse._cdc_quote_list(plan.state_columns)
          ~ " from " ~ plan.state_relation ~ " where cdc_bucket = " ~ cdc_lakehouse._cdc_partition('delta'),
          plan.state_columns, cdc.unique_key, plan.state_relation, cdc.buckets, cdc.retention_days] -%}
    {%- set merge_options = {} -%}
  {%- else -%}
    {%- set merge_sql = cdc_lakehouse._cdc_delta_merge_sql -%}
    {%- set merge_args = [changes_sql, plan.state_columns, cdc.unique_key, plan.state_relation] -%}
    {#- up to 500k batch rows, their keys are broadcast (tens of MB at most) -#}
    {%- set merge_options = {'small_batch': batch.rows <= 500000} -%}
  {%- endif -%}
  {%- set candidates_relation = none -%}
  {%- if carry is not none -%}
    {#- the carry-over reads the candidates several times: they are written once -#}
    {%- set candidates_relation = plan.candidates_relation -%}
    {{ cdc_lakehouse._cdc_write_scratch(candidates_relation, merge_sql(*merge_args, candidates_only=true)) }}
  {%- endif -%}
  {%- set staged_sql = merge_sql(
        *merge_args, carry=carry, candidates_relation=candidates_relation, **merge_options) -%}
  {{ cdc_lakehouse._cdc_stage(plan, staged_sql) }}
  {{ cdc_lakehouse._cdc_record_run(plan.state_relation, cdc_lakehouse._cdc_run_properties(
        plan.state_relation, batch.loaded_through, 'staged', kind)) }}
  {{ cdc_lakehouse.cdc_after_staging(this) }}
  {#- the package's data tests of the model, over what it staged: recorded with the run -#}
  {%- set checks = cdc_lakehouse._cdc_state_checks(plan, batch.sql, kind) -%}
  {#- a delta run without a truncate stages the delta partition alone -#}
  {{ cdc_lakehouse._cdc_apply_staging(plan.state_relation, plan.staging_relation, kind,
        delta_only=kind == 'delta' and batch.truncates == 0) }}
  {%- set run_record = cdc_lakehouse._cdc_run_properties(plan.state_relation, batch.loaded_through, 'applied', kind) -%}
  {%- do run_record.update(checks) -%}
  {%- do plan.update({'run_record': run_record}) -%}
  {%- if carry is not none %}
  {{ adapter.drop_relation(plan.candidates_relation) }}
  {%- endif %}
{% endmacro %}
