{% macro _cdc_companion_relation(suffix) %}
  {#- A table that lives beside the model's relation: <identifier><suffix>. -#}
  {{ return(api.Relation.create(
      database=this.database, schema=this.schema,
      identifier=this.identifier ~ suffix, type='table')) }}
{% endmacro %}

{% macro _cdc_create_runs_table(runs_relation) %}
  {#- Creates the run log table if it does not exist. -#}
  {% call statement('cdc_create_runs') %}
    create table if not exists {{ runs_relation }} (
      invocation_id string,
      loaded_through timestamp,
      status string,
      recorded_at timestamp,
      kind string
    )
    using parquet
  {% endcall %}
{% endmacro %}

{% macro _cdc_record_run(runs_relation, loaded_through, status, kind) %}
  {#-
      Append-only run log: `staged` before the state is overwritten, `applied` after.
      kind: full (a rebuild), delta (only the delta partition -2 was rewritten),
      compaction (the touched buckets were rewritten and the delta folded into them),
      merge (MERGE INTO formats).
  -#}
  {% call statement('cdc_record_run_' ~ status) %}
    insert into {{ runs_relation }}
    select
      '{{ invocation_id }}',
      {% if loaded_through is none %}cast(null as timestamp){% else %}timestamp'{{ loaded_through }}'{% endif %},
      '{{ status }}',
      current_timestamp(),
      '{{ kind }}'
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
      Applies the staged buckets a killed run left behind.
      A run killed after staging but before `applied` left its staged buckets behind:
      overwrite them again (idempotent) before anything else.
  -#}
  {{ cdc_lakehouse._cdc_create_runs_table(runs_relation) }}
  {%- set last = run_query(
      "select status, cast(loaded_through as string), kind from " ~ runs_relation
      ~ " order by recorded_at desc, status desc limit 1") -%}
  {%- if last.rows | length > 0 and last.rows[0][0] == 'staged' -%}
    {%- set staging = adapter.get_relation(
          database=staging_relation.database, schema=staging_relation.schema,
          identifier=staging_relation.identifier) -%}
    {%- if staging is not none -%}
      {{ log("Resuming an interrupted run of " ~ this ~ ": re-applying staged buckets", info=True) }}
      {{ cdc_lakehouse._cdc_apply_staging(state_relation, staging_relation, last.rows[0][2], 'cdc_resume') }}
      {{ cdc_lakehouse._cdc_record_run(runs_relation, last.rows[0][1], 'applied', last.rows[0][2]) }}
      {{ adapter.drop_relation(staging_relation) }}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}

{% macro _cdc_apply_staging(state_relation, staging_relation, kind, statement_name='main') %}
  {#-
      Overwrites the state partitions present in the staging table.
      Overwrite the state partitions present in the staging table (idempotent). After a
      compaction the delta partition was folded into the buckets: it is dropped.
  -#}
  {% call statement(statement_name) %}
    insert overwrite table {{ state_relation }} partition (cdc_bucket)
    select * from {{ staging_relation }}
  {% endcall %}
  {%- if kind == 'compaction' %}
    {% call statement('cdc_drop_delta') %}
      alter table {{ state_relation }} drop if exists partition (cdc_bucket = {{ cdc_lakehouse._cdc_partition('delta') }})
    {% endcall %}
  {%- endif %}
{% endmacro %}

{% macro _cdc_state_counts(state_relation) %}
  {#- Rows of the compacted buckets and of the delta partition, as a dict. -#}
  {%- set result = run_query(
      "select count_if(cdc_bucket >= 0), count_if(cdc_bucket = " ~ cdc_lakehouse._cdc_partition('delta') ~ ") from " ~ state_relation) -%}
  {{ return({'compacted': result.rows[0][0] | int, 'delta': result.rows[0][1] | int}) }}
{% endmacro %}

{% macro _cdc_truncate_marker_rows(columns) %}
  {#-
      State rows of the truncate markers (cdc_bucket = -1).
      One per source table, from a `truncates` CTE (_cdc_source_id, truncated_before) when the
      batch has a `new_truncates` CTE with rows: otherwise nothing, so the stored markers stay.
  -#}
    select
        {%- for column in columns %}
        {%- if column == '_cdc_source_id' %}
        _cdc_source_id,
        {%- elif column == '_cdc_sort_key' %}
        truncated_before as _cdc_sort_key,
        {%- elif column == '_cdc_op' %}
        't' as _cdc_op,
        {%- elif column == '_loaded_at' %}
        current_timestamp() as _loaded_at,
        {%- else %}
        null as {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endif %}
        {%- endfor %}
        true as _cdc_is_deleted,
        {{ cdc_lakehouse._cdc_partition('truncate_markers') }} as cdc_bucket
    from truncates
    where exists (select 1 from new_truncates)
{% endmacro %}

{% macro _cdc_stage(staging_relation, state_relation, staged_sql) %}
  {#-
      Writes the new content of some state partitions to the staging table.
      Write the new content of some state partitions to the staging table. The table is
      created empty first (a metadata step) and filled by an insert, so a run killed
      while writing leaves a registered table, which the next run drops with its files;
      a CTAS killed half-way would leave an unregistered folder that blocks the name.
  -#}
  {{ adapter.drop_relation(staging_relation) }}
  {% call statement('cdc_create_staging') %}
    create table {{ staging_relation }} like {{ state_relation }}
  {% endcall %}
  {% call statement('cdc_stage') %}
    insert into {{ staging_relation }}
    {{ staged_sql }}
  {% endcall %}
{% endmacro %}

{% macro _cdc_write_scratch(relation, sql) %}
  {#-
      Writes a query's rows to a scratch table of the run.
      Write a query's rows to a scratch table of the run (`<model>__cdc_batch`,
      `<model>__cdc_candidates`), so that the statements after it read a table instead of
      planning and running the query again. Created empty, then filled (as _cdc_stage
      does): a run killed while writing leaves a registered table, which the next run
      drops with its files. The caller drops it when done.
  -#}
  {{ adapter.drop_relation(relation) }}
  {% call statement('cdc_create_scratch') %}
    create table {{ relation }} using parquet as {{ sql }} limit 0
  {% endcall %}
  {% call statement('cdc_write_scratch') %}
    insert into {{ relation }} {{ sql }}
  {% endcall %}
{% endmacro %}

{% macro _cdc_truncates_ctes(changes_from, state_relation) %}
  {#-
      CTEs of the batch's truncates and of those merged with the stored markers.
      CTEs new_truncates (the batch's latest truncate per source table, from the rows of
      `changes_from`, a CTE name or a parenthesised query with an alias) and truncates
      (those merged with the stored markers, cdc_bucket = -1, of state_relation; none on a
      full build). _cdc_truncate_marker_rows writes them back.
  -#}
new_truncates as (

    select _cdc_source_id, max(_cdc_sort_key) as truncated_before
    from {{ changes_from }}
    where _cdc_op = 't'
    group by _cdc_source_id

),

truncates as (

    select _cdc_source_id, max(truncated_before) as truncated_before
    from (
        select _cdc_source_id, truncated_before from new_truncates
        {%- if state_relation is not none %}
        union all
        select _cdc_source_id, _cdc_sort_key as truncated_before
        from {{ state_relation }}
        where cdc_bucket = {{ cdc_lakehouse._cdc_partition('truncate_markers') }}
        {%- endif %}
    ) as all_truncates
    group by _cdc_source_id

)
{% endmacro %}

