{% macro _cdc_companion_relation(suffix) %}
  {#- A table that lives beside the model's relation: <identifier><suffix>. -#}
  {{ return(api.Relation.create(
      database=this.database, schema=this.schema,
      identifier=this.identifier ~ suffix, type='table')) }}
{% endmacro %}

{% macro _cdc_create_runs_table(runs_relation) %}
  {% call statement('cdc_create_runs') %}
    create table if not exists {{ runs_relation }} (
      invocation_id string,
      loaded_through timestamp,
      status string,
      recorded_at timestamp
    )
    using parquet
  {% endcall %}
{% endmacro %}

{% macro _cdc_record_run(runs_relation, loaded_through, status) %}
  {#- Append-only run log: `staged` before the state is overwritten, `applied` after. -#}
  {% call statement('cdc_record_run_' ~ status) %}
    insert into {{ runs_relation }}
    select
      '{{ invocation_id }}',
      {% if loaded_through is none %}cast(null as timestamp){% else %}timestamp'{{ loaded_through }}'{% endif %},
      '{{ status }}',
      current_timestamp()
  {% endcall %}
{% endmacro %}

{% macro _cdc_watermark(runs_relation) %}
  {#- The newest _loaded_at already applied to the state, as text (or none). -#}
  {%- set result = run_query(
      "select cast(max(loaded_through) as string) from " ~ runs_relation
      ~ " where status = 'applied'") -%}
  {{ return(result.columns[0].values()[0]) }}
{% endmacro %}

{% macro _cdc_resume_interrupted_run(state_relation, runs_relation, staging_relation) %}
  {#-
      A run killed after staging but before `applied` left its staged buckets behind:
      overwrite them again (idempotent) before anything else.
  -#}
  {{ _cdc_create_runs_table(runs_relation) }}
  {%- set last = run_query(
      "select status, cast(loaded_through as string) from " ~ runs_relation
      ~ " order by recorded_at desc, status desc limit 1") -%}
  {%- if last.rows | length > 0 and last.rows[0][0] == 'staged' -%}
    {%- set staging = adapter.get_relation(
          database=staging_relation.database, schema=staging_relation.schema,
          identifier=staging_relation.identifier) -%}
    {%- if staging is not none -%}
      {{ log("Resuming an interrupted run of " ~ this ~ ": re-applying staged buckets", info=True) }}
      {% call statement('cdc_resume') %}
        insert overwrite table {{ state_relation }} partition (cdc_bucket)
        select * from {{ staging_relation }}
      {% endcall %}
      {{ _cdc_record_run(runs_relation, last.rows[0][1], 'applied') }}
      {{ adapter.drop_relation(staging_relation) }}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}
