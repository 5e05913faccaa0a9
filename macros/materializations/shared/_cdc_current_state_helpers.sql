{% macro _cdc_companion_relation(suffix) %}
  {#- A table that lives beside the model's relation: <identifier><suffix>. -#}
  {{ return(api.Relation.create(
      database=this.database, schema=this.schema,
      identifier=this.identifier ~ suffix, type='table')) }}
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

{% macro _cdc_run_record(state_relation) %}
  {#-
      The state's run record, from its table properties.
      No statement of its own: the properties are read once per invocation
      (_cdc_table_properties). Returns {watermark, staged, kind, legacy}: `watermark` the
      newest `_loaded_at` applied to the state (`cdc.run.loaded_through`, text, none when
      nothing was), `staged` the
      `loaded_through` of a run that staged its partitions and did not record them applied
      (`cdc.run.staged`, none when there is none), `kind` its kind or the last applied one's
      (`cdc.run.kind`), `legacy` true for a state written before the record moved into its
      properties (decision 0023: its run log, `<model>__cdc_runs`, is read once instead).
  -#}
  {%- set properties = cdc_lakehouse._cdc_table_properties(state_relation) -%}
  {%- set watermark = properties.get('cdc.run.loaded_through') -%}
  {{ return({
      'watermark': watermark if watermark not in [none, '', 'none'] else none,
      'staged': properties.get('cdc.run.staged') or none,
      'kind': properties.get('cdc.run.kind'),
      'legacy': watermark is none,
  }) }}
{% endmacro %}

{% macro _cdc_run_properties(state_relation, loaded_through, status, kind, resumed=false) %}
  {#-
      The table properties that record a run of the state, as a dict.
      `staged` (before the state is overwritten): `cdc.run.staged` (its `loaded_through`)
      and `cdc.run.kind`. `applied` (after): `cdc.run.staged` cleared, `cdc.run.loaded_through`
      (the watermark of the next run; 'none' when the change log held nothing), `cdc.run.kind`
      and the count of runs of that kind (`cdc.run.count.<kind>`, and
      `cdc.run.count.resumed` for a staged run a later one applied): cumulative since the
      state was built, which tests ask instead of a run log. kind: full (a rebuild), delta
      (only the delta partition -2 was rewritten), compaction (the touched buckets were
      rewritten and the delta folded into them), merge (MERGE INTO formats).
  -#}
  {%- if status == 'staged' -%}
    {{ return({'cdc.run.staged': loaded_through | string, 'cdc.run.kind': kind}) }}
  {%- endif -%}
  {%- set properties = cdc_lakehouse._cdc_table_properties(state_relation) if kind != 'full' else {} -%}
  {%- set counted = ['cdc.run.count.' ~ kind] + (['cdc.run.count.resumed'] if resumed else []) -%}
  {%- set record = {
        'cdc.run.staged': '',
        'cdc.run.loaded_through': loaded_through | string if loaded_through is not none else 'none',
        'cdc.run.kind': kind,
  } -%}
  {%- for name in counted -%}
    {%- do record.update({name: (properties.get(name, '0') | int + 1) | string}) -%}
  {%- endfor -%}
  {{ return(record) }}
{% endmacro %}

{% macro _cdc_record_run(state_relation, record) %}
  {#-
      Sets a run record on the state, in one statement.
      The record is a dict of table properties (_cdc_run_properties), kept in the
      invocation's cached properties: `staged` before the state is overwritten, `applied`
      after a resumed run, the migrated record of an old-layout state. A run's own `applied` record goes with its read-through instead
      (cdc_current_state's last `alter`, through the plan's `run_record`).
  -#}
  {% call statement('cdc_record_run') %}
    alter table {{ state_relation }} set tblproperties (
    {%- for name, value in record.items() %}
      '{{ name }}' = '{{ value }}'{{ ',' if not loop.last }}
    {%- endfor %}
    )
  {% endcall %}
  {%- do cdc_lakehouse._cdc_remember_properties(state_relation, record) -%}
{% endmacro %}

{% macro _cdc_legacy_run_log(plan) %}
  {#-
      Migrates a state of the old layout: reads its run log once, then drops it.
      The run log of a state written before decision 0023 (`<model>__cdc_runs`) is read
      on the first run of the new layout. A staged run it left is applied (its staging
      table, partitioned like the state); the scratch tables of that layout are dropped,
      since this layout keeps its own between runs. The state
      records the watermark (`cdc.run.loaded_through`) before the run log is dropped.
      Returns it (the newest `applied` `loaded_through`, as text, or none). No run log:
      none (the batch is then the whole change log, which a replay applies without harm).
  -#}
  {%- set runs = cdc_lakehouse._cdc_existing(plan.runs_relation) -%}
  {%- set watermark = none -%}
  {%- set kind = 'full' -%}
  {%- if runs is not none -%}
    {%- set result = run_query(
        "select status, cast(loaded_through as string), kind, "
        ~ "(select cast(max(loaded_through) as string) from " ~ runs ~ " where status = 'applied') "
        ~ "from " ~ runs ~ " order by recorded_at desc, status desc limit 1") -%}
    {%- if result.rows | length > 0 -%}
      {%- set row = result.rows[0] -%}
      {%- set watermark = row[3] -%}
      {%- set kind = row[2] -%}
      {%- if row[0] == 'staged' and cdc_lakehouse._cdc_existing(plan.staging_relation) is not none -%}
        {{ log("Resuming an interrupted run of " ~ this ~ " (run log of the old layout): re-applying staged buckets", info=True) }}
        {{ cdc_lakehouse._cdc_apply_staging(plan.state_relation, plan.staging_relation, row[2], 'cdc_resume') }}
        {%- set watermark = row[1] -%}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
  {%- set record = {
        'cdc.run.staged': '',
        'cdc.run.loaded_through': watermark | string if watermark is not none else 'none',
        'cdc.run.kind': kind,
  } -%}
  {{ cdc_lakehouse._cdc_record_run(plan.state_relation, record) }}
  {%- if runs is not none -%}
    {{ adapter.drop_relation(runs) }}
  {%- endif -%}
  {{ cdc_lakehouse._cdc_drop_if_present(plan.staging_relation) }}
  {{ cdc_lakehouse._cdc_drop_if_present(plan.batch_relation) }}
  {{ return(watermark) }}
{% endmacro %}

{% macro _cdc_resume_interrupted_run(plan) %}
  {#-
      Applies the staged partitions a killed run left behind; returns the watermark.
      A run killed after recording `staged` (cdc.run.staged) but before `applied` left its
      staging table filled: its partitions are overwritten again (idempotent) and the run
      recorded applied, before anything else. Returns the newest `loaded_through` applied
      to the state after that (_cdc_run_record), as text or none. A state of the old layout
      reads its run log once (_cdc_legacy_run_log).
  -#}
  {%- set record = cdc_lakehouse._cdc_run_record(plan.state_relation) -%}
  {%- if record.legacy -%}
    {{ return(cdc_lakehouse._cdc_legacy_run_log(plan)) }}
  {%- endif -%}
  {%- if record.staged is not none -%}
    {{ log("Resuming an interrupted run of " ~ this ~ ": re-applying staged buckets", info=True) }}
    {{ cdc_lakehouse._cdc_apply_staging(plan.state_relation, plan.staging_relation, record.kind, 'cdc_resume') }}
    {{ cdc_lakehouse._cdc_record_run(plan.state_relation, cdc_lakehouse._cdc_run_properties(
          plan.state_relation, record.staged, 'applied', record.kind, resumed=true)) }}
    {#- a staged run comes after every applied one -#}
    {{ return(record.staged) }}
  {%- endif -%}
  {{ return(record.watermark) }}
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

{% macro _cdc_stage(plan, staged_sql) %}
  {#-
      Writes the new content of some state partitions to the staging table.
      The staging table (`<model>__cdc_staging`, not partitioned, the state's columns and
      cdc_bucket) is kept between runs: filled by `insert overwrite` (by column name), which
      replaces all it held whatever the session's partition overwrite mode. A run killed
      while writing it has not recorded `staged` yet, so no run reads what it left. Created
      (empty, from the state) only when the relation cache does not have it
      (_cdc_ensure_scratch).
  -#}
  {{ cdc_lakehouse._cdc_ensure_scratch(plan.staging_relation, "select * from " ~ plan.state_relation) }}
  {{ cdc_lakehouse._cdc_overwrite_scratch(plan.staging_relation, plan.state_columns + ['_cdc_is_deleted', 'cdc_bucket'], staged_sql, 'cdc_stage') }}
{% endmacro %}

{% macro _cdc_ensure_scratch(relation, sql) %}
  {#-
      Creates a scratch table of the model unless it exists.
      `<model>__cdc_batch` or `<model>__cdc_staging` (kept between runs), or the candidates
      table _cdc_write_scratch fills, with the columns of `sql` and no row,
      unless the invocation's relation cache has it (no statement then). A rebuild creates them (_cdc_write_rebuild); an incremental run
      creates only what is missing (a state of the old layout, a table dropped by hand).
      `limit 0`: Spark plans the query and reads nothing.
  -#}
  {%- if cdc_lakehouse._cdc_existing(relation) is none -%}
    {% call statement('cdc_create_scratch') %}
      create table {{ relation }} using parquet as {{ sql }} limit 0
    {% endcall %}
  {%- endif -%}
{% endmacro %}

{% macro _cdc_overwrite_scratch(relation, columns, sql, statement_name='cdc_write_scratch') %}
  {#-
      Replaces the rows of a kept scratch table by a query's, in one statement.
      `columns`: the names the query returns, in its order (an insert by column list, so
      that a table created when the model listed them in another order still gets each
      value in its column). The table is not partitioned: the overwrite replaces all of it.
  -#}
  {% call statement(statement_name) %}
    insert overwrite table {{ relation }} ({{ cdc_lakehouse._cdc_quote_list(columns) }})
    {{ sql }}
  {% endcall %}
{% endmacro %}

{% macro _cdc_write_scratch(relation, sql) %}
  {#-
      Writes a query's rows to a scratch table of the run, dropped by the caller.
      For the candidates of a carry-over (`<model>__cdc_candidates`), whose columns depend on
      the path (delta or compaction), so they are not kept between runs: the statements after
      it read a table instead of planning and running the query again. Created empty, then
      filled: a run killed while writing leaves a registered table, which the next run drops
      with its files.
  -#}
  {{ cdc_lakehouse._cdc_drop_if_present(relation) }}
  {{ cdc_lakehouse._cdc_ensure_scratch(relation, sql) }}
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

