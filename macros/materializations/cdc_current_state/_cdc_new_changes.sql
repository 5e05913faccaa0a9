{% macro _cdc_new_changes(plan, sql, batch_relation=none) %}
  {#-
      The batch of an incremental cdc_current_state run.
      The batch is the model's readable rows loaded after the last applied run (the runs table's
      watermark), as `sql`, with its newest `_loaded_at` (`loaded_through`, none when there is
      nothing new) and its row count.

      With `batch_relation`, the batch is computed once and written there (its state
      columns and whether each row is readable), and `sql` reads that table: the statements
      that follow read the batch two or three times (the carry-over's revisit, the staging
      query's CTEs, which Spark inlines at every reference), and each read of the model's
      SQL plans and runs the change log again (a carry-over staging insert of
      test_unavailable_values took 14 s against 5 s over the written batch). The caller
      drops it when done.
  -#}
  {%- set watermark = cdc_lakehouse._cdc_watermark(plan.runs_relation) -%}
  {%- set batch_sql -%}
    select * from ({{ sql }}) as model_changes
    {%- if watermark is not none %}
    where _loaded_at > timestamp'{{ watermark }}'
    {%- endif %}
  {%- endset -%}
  {%- if batch_relation is not none -%}
    {%- set written_sql -%}
      select {{ cdc_lakehouse._cdc_quote_list(plan.state_columns) }}, {{ plan.readable }} as _cdc_is_readable
      from ({{ batch_sql }}) as batch
    {%- endset -%}
    {{ cdc_lakehouse._cdc_write_scratch(batch_relation, written_sql) }}
  {%- endif -%}
  {%- set read_from = batch_relation if batch_relation is not none else '(' ~ batch_sql ~ ')' -%}
  {%- set stats = run_query(
        "select cast(max(_loaded_at) as string), count(*) from " ~ read_from).rows[0] -%}
  {{ return({
      'loaded_through': stats[0],
      'rows': stats[1] | int,
      'sql': "select " ~ cdc_lakehouse._cdc_quote_list(plan.state_columns) ~ " from " ~ read_from ~ " as batch "
          ~ (plan.readable_only if batch_relation is none else 'where _cdc_is_readable'),
  }) }}
{% endmacro %}
