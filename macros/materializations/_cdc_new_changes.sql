{% macro _cdc_new_changes(plan, sql) %}
  {#-
      The batch of an incremental cdc_current_state run: the model's readable rows loaded
      after the last applied run (the runs table's watermark), as `sql`, with its newest
      `_loaded_at` (`loaded_through`, none when there is nothing new) and its row count.
  -#}
  {%- set watermark = _cdc_watermark(plan.runs_relation) -%}
  {%- set batch_sql -%}
    select * from ({{ sql }}) as model_changes
    {%- if watermark is not none %}
    where _loaded_at > timestamp'{{ watermark }}'
    {%- endif %}
  {%- endset -%}
  {%- set stats = run_query(
        "select cast(max(_loaded_at) as string), count(*) from (" ~ batch_sql ~ ")").rows[0] -%}
  {{ return({
      'loaded_through': stats[0],
      'rows': stats[1] | int,
      'sql': "select " ~ cdc_quote_list(plan.state_columns) ~ " from (" ~ batch_sql ~ ") as batch "
          ~ plan.readable_only,
  }) }}
{% endmacro %}
