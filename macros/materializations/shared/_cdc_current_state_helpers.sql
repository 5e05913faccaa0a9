{% macro _cdc_companion_relation(suffix) %}
  {#- A table that lives beside the model's relation: <identifier><suffix>. -#}
  {{ return(api.Relation.create(
      database=this.database, schema=this.schema,
      identifier=this.identifier ~ suffix, type='table')) }}
{% endmacro %}

{% macro _cdc_create_runs_table(runs_relation) %}
  {#-
      Creates the run log table if it does not exist.
      Returns whether it created it. The invocation's relation cache says whether the table
      exists (no statement when it does); `create table if not exists` keeps a table another
      process created meanwhile.
  -#}
  {%- if cdc_lakehouse._cdc_existing(runs_relation) is not none -%}
    {{ return(false) }}
  {%- endif -%}
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
  {{ return(true) }}
{% endmacro %}

{% macro _cdc_existing(relation) %}
  {#-
      The relation as the invocation's relation cache knows it, or none.
      dbt lists each schema once per invocation and follows the drops it makes
      (adapter.drop_relation): no statement. A table a statement created in this node is not
      in it: ask only about tables the node has not created.
  -#}
  {{ return(adapter.get_relation(
      database=relation.database, schema=relation.schema, identifier=relation.identifier)) }}
{% endmacro %}

{% macro _cdc_drop_if_present(relation) %}
  {#- Drops a scratch table of the run when the relation cache has it (no statement when not). -#}
  {%- set existing = cdc_lakehouse._cdc_existing(relation) -%}
  {%- if existing is not none -%}
    {{ adapter.drop_relation(existing) }}
  {%- endif -%}
{% endmacro %}

{% macro _cdc_run_log(runs_relation) %}
  {#-
      The run log's last entry and watermark, in one statement.
      Creates the run log when it does not exist (then it is empty: no query). Returns
      {last: {status, loaded_through, kind} or none, watermark}: the watermark is the newest
      `loaded_through` already applied to the state, as text (or none).
  -#}
  {%- if cdc_lakehouse._cdc_create_runs_table(runs_relation) -%}
    {{ return({'last': none, 'watermark': none}) }}
  {%- endif -%}
  {%- set result = run_query(
      "select status, cast(loaded_through as string), kind, "
      ~ "(select cast(max(loaded_through) as string) from " ~ runs_relation ~ " where status = 'applied') "
      ~ "from " ~ runs_relation ~ " order by recorded_at desc, status desc limit 1") -%}
  {%- if result.rows | length == 0 -%}
    {{ return({'last': none, 'watermark': none}) }}
  {%- endif -%}
  {%- set row = result.rows[0] -%}
  {{ return({'last': {'status': row[0], 'loaded_through': row[1], 'kind': row[2]}, 'watermark': row[3]}) }}
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

{% macro _cdc_resume_interrupted_run(state_relation, runs_relation, staging_relation) %}
  {#-
      Applies the staged buckets a killed run left behind; returns the watermark.
      A run killed after staging but before `applied` left its staged buckets behind:
      overwrite them again (idempotent) before anything else. Returns the newest
      `loaded_through` applied to the state after that (_cdc_run_log), as text or none.
  -#}
  {%- set run_log = cdc_lakehouse._cdc_run_log(runs_relation) -%}
  {%- set last = run_log['last'] -%}
  {%- if last is not none and last.status == 'staged' -%}
    {%- set staging = cdc_lakehouse._cdc_existing(staging_relation) -%}
    {%- if staging is not none -%}
      {{ log("Resuming an interrupted run of " ~ this ~ ": re-applying staged buckets", info=True) }}
      {{ cdc_lakehouse._cdc_apply_staging(state_relation, staging_relation, last.kind, 'cdc_resume') }}
      {{ cdc_lakehouse._cdc_record_run(runs_relation, last.loaded_through, 'applied', last.kind) }}
      {{ adapter.drop_relation(staging) }}
      {#- a staged run comes after every applied one -#}
      {{ return(last.loaded_through) }}
    {%- endif -%}
  {%- endif -%}
  {{ return(run_log['watermark']) }}
{% endmacro %}

{% macro _cdc_apply_staging(state_relation, staging_relation, kind, statement_name='main', delta_only=false) %}
  {#-
      Overwrites the state partitions present in the staging table.
      Overwrite the state partitions present in the staging table (idempotent). After a
      compaction the delta partition was folded into the buckets: it is dropped.
      `delta_only`: the staging table holds the delta partition alone (a `delta` run whose
      batch has no truncate), which a static partition overwrite replaces: no session
      setting. Otherwise a dynamic partition overwrite, the session set to it first.
  -#}
  {%- if delta_only -%}
    {% call statement(statement_name) %}
      insert overwrite table {{ state_relation }} partition (cdc_bucket = {{ cdc_lakehouse._cdc_partition('delta') }})
      select * except (cdc_bucket) from {{ staging_relation }}
    {% endcall %}
    {{ return('') }}
  {%- endif -%}
  {% call statement('cdc_set_overwrite_mode') %}
    set spark.sql.sources.partitionOverwriteMode = dynamic
  {% endcall %}
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

{% macro _cdc_state_counts_sql(state_relation) %}
  {#- Scalar queries of the rows of the compacted buckets and of the delta partition (_cdc_new_changes' questions). -#}
  {{ return({
      'compacted': "select count_if(cdc_bucket >= 0) from " ~ state_relation,
      'delta': "select count_if(cdc_bucket = " ~ cdc_lakehouse._cdc_partition('delta') ~ ") from " ~ state_relation,
  }) }}
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
  {{ cdc_lakehouse._cdc_drop_if_present(staging_relation) }}
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
  {{ cdc_lakehouse._cdc_drop_if_present(relation) }}
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

