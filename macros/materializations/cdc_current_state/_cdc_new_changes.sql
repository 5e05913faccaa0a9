{% macro _cdc_new_changes(plan, sql, watermark, batch_relation=none, questions={}) %}
  {#- The batch of an incremental cdc_current_state run, and the answers to the run's questions. -#}
  {%- set batch_sql -%}
    select * from ({{ sql }}) as model_changes
    {%- if watermark is not none %}
    where _loaded_at > timestamp'{{ watermark }}'
    {%- endif %}
  {%- endset -%}
  {%- if batch_relation is not none -%}
    {%- set written_sql = cdc_lakehouse._cdc_batch_table_sql(plan, batch_sql) -%}
    {{ cdc_lakehouse._cdc_ensure_scratch(batch_relation, written_sql) }}
    {{ cdc_lakehouse._cdc_overwrite_scratch(batch_relation, plan.state_columns + ['_cdc_is_readable'], written_sql) }}
  {%- endif -%}
  {%- set read_from = batch_relation if batch_relation is not none else '(' ~ batch_sql ~ ')' -%}
  {%- set readable_sql = cdc_lakehouse._cdc_batch_sql(plan, read_from, written=batch_relation is not none) -%}
  {%- set asked = {
        'loaded_through': "select cast(max(_loaded_at) as string) from " ~ read_from,
        'rows': "select count(*) from " ~ read_from,
        'truncates': "select count_if(_cdc_op = 't') from (" ~ readable_sql ~ ") as batch",
  } -%}
  {%- do asked.update(questions) -%}
  {%- set names = asked.keys() | list -%}
  {%- set scalars = [] -%}
  {%- for name in names -%}
    {%- do scalars.append('(' ~ asked[name] ~ ')') -%}
  {%- endfor -%}
  {%- set row = run_query("select " ~ scalars | join(', ')).rows[0] -%}
  {%- set answers = {} -%}
  {%- for name in names -%}
    {%- do answers.update({name: row[loop.index0]}) -%}
  {%- endfor -%}
  {{ return({
      'loaded_through': answers['loaded_through'],
      'rows': answers['rows'] | int,
      'truncates': answers['truncates'] | int,
      'answers': answers,
      'sql': readable_sql,
  }) }}
{% endmacro %}

{% macro _cdc_batch_sql(plan, read_from, written=true) %}
  {#- The readable rows of the batch, as SQL. -#}
  {{ return("select " ~ cdc_lakehouse._cdc_quote_list(plan.state_columns) ~ " from " ~ read_from ~ " as batch "
      ~ ('where _cdc_is_readable' if written else plan.readable_only)) }}
{% endmacro %}

{% macro _cdc_batch_table_sql(plan, changes_sql) %}
  {#- The query of the batch table's rows, as SQL. -#}
  {{ return("select " ~ cdc_lakehouse._cdc_quote_list(plan.state_columns) ~ ", " ~ plan.readable
      ~ " as _cdc_is_readable from (" ~ changes_sql ~ ") as batch") }}
{% endmacro %}
