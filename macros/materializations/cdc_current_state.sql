{% materialization cdc_current_state, adapter='spark' %}
  {#-
      One current row per key from a change log (the model's SQL), applying inserts,
      updates, deletes and truncates in source order, idempotent under replays.

      Config:
        unique_key         list of key columns (required); include _cdc_source_id when
                           several source databases feed the table
        cdc_delete_mode    hard (default): deleted keys leave the relation;
                           soft: they stay with _cdc_is_deleted / _cdc_deleted_at
        cdc_buckets        key-hash buckets of the state table (var cdc_gold_buckets)
        file_format        parquet (default: merge on read, see below) or delta, iceberg,
                           hudi (MERGE INTO, see _cdc_merge_into_statements)
        cdc_compaction_ratio  parquet: fold the delta partition into the buckets when it
                           would exceed this fraction of the compacted rows (var
                           cdc_compaction_ratio, default 0.1)
        cdc_tombstone_retention_days  (var cdc_tombstone_retention_days)
        cdc_unavailable_value_placeholder  (var of the same name, default
                           '__debezium_unavailable_value'; empty: off) the value Debezium
                           sends for an unchanged TOASTed column: carried over from the
                           previous value, never stored (_cdc_carry_over.sql)

      The model's SQL must return the change rows with _cdc_op, _cdc_sort_key,
      _cdc_source_id, _cdc_source_ts and _loaded_at (and may return _cdc_error_reason:
      rows with one are skipped, here, before either write path sees them).

      Parquet layout (details in docs/architecture.md): a state table partitioned by
      cdc_bucket: key-hash buckets >= 0 hold the compacted rows (tombstones included),
      -1 the truncate markers, -2 the delta (latest changes since the last compaction).
      An incremental run rewrites only the delta (and the truncate markers when it has
      truncates), so its cost follows the batch; once the delta would exceed
      cdc_compaction_ratio of the compacted rows, the run folds batch and delta into the
      buckets they touch instead (copy-on-write through a staging table, dynamic
      partition overwrite). The published view shows a compacted row unless the delta
      has its key or a newer truncate marker hides it.
  -#}
  {%- set unique_key = config.get('unique_key') -%}
  {%- if unique_key is string -%}{%- set unique_key = [unique_key] -%}{%- endif -%}
  {%- if not unique_key -%}
    {{ exceptions.raise_compiler_error(
        "cdc_current_state model " ~ this ~ " needs config unique_key (a list of columns)."
    ) }}
  {%- endif -%}
  {%- set delete_mode = config.get('cdc_delete_mode', 'hard') -%}
  {%- if delete_mode not in ['hard', 'soft'] -%}
    {{ exceptions.raise_compiler_error(
        "cdc_delete_mode '" ~ delete_mode ~ "' of " ~ this ~ " is not one of: hard, soft"
    ) }}
  {%- endif -%}
  {%- set buckets = config.get('cdc_buckets', var('cdc_gold_buckets', 8)) | int -%}
  {%- set file_format = config.get('file_format') or 'parquet' -%}
  {%- set merge_formats = ['delta', 'iceberg', 'hudi'] -%}
  {%- if file_format not in ['parquet'] + merge_formats -%}
    {{ exceptions.raise_compiler_error(
        "cdc_current_state model " ~ this ~ ": file_format '" ~ file_format ~ "' is not one of "
        ~ "parquet (copy-on-write buckets), delta, iceberg, hudi (MERGE INTO)"
    ) }}
  {%- endif -%}
  {%- set compaction_ratio = config.get(
        'cdc_compaction_ratio', var('cdc_compaction_ratio', 0.1)) | float -%}
  {%- set retention_days = config.get(
        'cdc_tombstone_retention_days', var('cdc_tombstone_retention_days', 7)) | int -%}

  {%- set target_relation = this.incorporate(type='view') -%}
  {%- set state_relation = _cdc_companion_relation('__cdc_state') -%}
  {%- set runs_relation = _cdc_companion_relation('__cdc_runs') -%}
  {%- set staging_relation = _cdc_companion_relation('__cdc_staging') -%}

  {%- set existing_state = adapter.get_relation(
        database=state_relation.database, schema=state_relation.schema,
        identifier=state_relation.identifier) -%}
  {%- set existing_target = adapter.get_relation(
        database=this.database, schema=this.schema, identifier=this.identifier) -%}

  {#- Inputs that hold nothing the state has not applied: no Spark job at all -#}
  {%- set inputs_read_through = cdc_inputs_read_through() -%}
  {%- set previous_read_through = cdc_read_through(existing_state) if not should_full_refresh() else none -%}
  {%- if existing_target is not none and existing_target.type == 'view'
        and cdc_is_up_to_date(existing_state, inputs_read_through) -%}
    {{ run_hooks(pre_hooks) }}
    {{ log("cdc_current_state: " ~ this ~ " has applied everything its inputs hold, left as it is") }}
    {% call statement('main') %}
      select 'inputs unchanged' as cdc_status
    {% endcall %}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [target_relation]}) }}
  {%- endif -%}

  {{ run_hooks(pre_hooks) }}

  {%- set model_columns = get_columns_in_query(sql) | map('lower') | list -%}
  {%- for required in ['_cdc_op', '_cdc_sort_key', '_cdc_source_id', '_cdc_source_ts', '_loaded_at'] + unique_key | map('lower') | list -%}
    {%- if required not in model_columns -%}
      {{ exceptions.raise_compiler_error(
          "cdc_current_state model " ~ this ~ " must select column '" ~ required
          ~ "'; it selects: " ~ model_columns | join(', ')
      ) }}
    {%- endif -%}
  {%- endfor -%}
  {%- set state_columns = model_columns | reject('in', ['_cdc_error_reason']) | list -%}
  {#- Rows with an error reason were quarantined upstream: never applied. -#}
  {%- set readable_only = "where _cdc_error_reason is null"
        if '_cdc_error_reason' in model_columns else "" -%}
  {#- _cdc_sort_key ends with the arrival of the copy that won: internal, not published,
      so that copies of one event delivered differently give the same relation. -#}
  {%- set published_columns = state_columns | reject('in', ['_cdc_sort_key']) | list -%}
  {#- Unavailable values (PostgreSQL TOAST placeholders) are carried over: _cdc_carry_over.sql -#}
  {%- set carry = _cdc_carry_spec(sql, unique_key, state_columns) -%}

  {%- set existing_columns = [] -%}
  {%- if existing_state is not none -%}
    {%- set existing_columns = adapter.get_columns_in_relation(existing_state)
          | map(attribute='name') | map('lower')
          | reject('in', ['_cdc_is_deleted', 'cdc_bucket']) | list -%}
  {%- endif -%}
  {%- set full_refresh = should_full_refresh() or existing_state is none -%}
  {%- if not full_refresh and existing_columns | sort != state_columns | sort -%}
    {{ exceptions.raise_compiler_error(
        "The columns of " ~ this ~ " changed (state has: " ~ existing_columns | sort | join(', ')
        ~ "; the model now selects: " ~ state_columns | sort | join(', ') ~ "). Rebuild it "
        ~ "from the change log with: dbt build --full-refresh --select " ~ model.name
    ) }}
  {%- endif -%}

  {% call statement('cdc_set_overwrite_mode') %}
    set spark.sql.sources.partitionOverwriteMode = dynamic
  {% endcall %}

  {%- if full_refresh -%}
    {{ adapter.drop_relation(state_relation) }}
    {{ adapter.drop_relation(runs_relation) }}
    {{ adapter.drop_relation(staging_relation) }}
    {#- one pass over the change log: the watermark, and whether the carry-over could
        change any row (when not, the build leaves it out) -#}
    {%- set carry_count = "0" -%}
    {%- if carry is not none -%}
      {%- set carry_count = "count_if(" ~ ("_cdc_error_reason is null and " if readable_only else "")
            ~ _cdc_carry_needed_condition(carry) ~ ")" -%}
    {%- endif -%}
    {%- set first_pass = run_query(
          "select cast(max(_loaded_at) as string), " ~ carry_count ~ " from (" ~ sql ~ ")"
        ).rows[0] -%}
    {%- set loaded_through = first_pass[0] -%}
    {%- set run_carry = carry if first_pass[1] | int > 0 else none -%}
    {% call statement('main') %}
      create table {{ state_relation }}
      using {{ file_format }}
      partitioned by (cdc_bucket)
      as
      {{ _cdc_state_merge_sql(
            "select * from (" ~ sql ~ ") as model_changes " ~ readable_only,
            state_columns, unique_key, none, buckets, retention_days, run_carry) }}
    {% endcall %}
    {{ _cdc_create_runs_table(runs_relation) }}
    {{ _cdc_record_run(runs_relation, loaded_through, 'applied', 'full') }}
  {%- else -%}
    {%- if file_format in merge_formats -%}
      {{ _cdc_create_runs_table(runs_relation) }}
    {%- else -%}
      {{ _cdc_resume_interrupted_run(state_relation, runs_relation, staging_relation) }}
    {%- endif -%}
    {%- set watermark = _cdc_watermark(runs_relation) -%}
    {%- set batch_sql -%}
      select * from ({{ sql }}) as model_changes
      {%- if watermark is not none %}
      where _loaded_at > timestamp'{{ watermark }}'
      {%- endif %}
    {%- endset -%}
    {%- set batch_stats = run_query(
          "select cast(max(_loaded_at) as string), count(*) from ("
          ~ batch_sql ~ ")"
        ).rows[0] -%}
    {%- set loaded_through = batch_stats[0] -%}
    {%- set readable_batch_sql = "select " ~ state_columns | join(', ') ~ " from (" ~ batch_sql
          ~ ") as batch " ~ readable_only -%}
    {%- if loaded_through is none -%}
      {% call statement('main') %}
        select 'no new changes' as cdc_status
      {% endcall %}
    {%- elif file_format in merge_formats -%}
      {%- for statement_sql in _cdc_merge_into_statements(
            readable_batch_sql, state_columns, unique_key, state_relation, buckets, retention_days,
            carry) -%}
        {% call statement('main' if loop.last else 'cdc_merge_' ~ loop.index) %}
          {{ statement_sql }}
        {% endcall %}
      {%- endfor -%}
      {{ _cdc_record_run(runs_relation, loaded_through, 'applied', 'merge') }}
    {%- else -%}
      {#- Merge on read: a batch goes to the delta partition, unless the delta would
          outgrow compaction_ratio x the compacted rows; then the batch and the delta
          are folded into the buckets they touch. -#}
      {%- set counts = _cdc_state_counts(state_relation) -%}
      {%- set compact = counts['delta'] + batch_stats[1] | int
            > compaction_ratio * counts['compacted'] -%}
      {%- set kind = 'compaction' if compact else 'delta' -%}
      {%- if carry is not none and carry.by_position -%}
        {#- stored creates of a primary-key change waiting for their delete -#}
        {%- set changes_sql = readable_batch_sql ~ " union all " ~ _cdc_carry_revisit_sql(
              carry, state_columns, readable_batch_sql, state_relation) -%}
      {%- else -%}
        {%- set changes_sql = readable_batch_sql -%}
      {%- endif -%}
      {#- A run skips the carry-over when it would change nothing (one cheap count). The
          revisited creates all hold placeholders, so then there are none: the staging
          query reads the batch alone, not the state scan that finds them again. -#}
      {%- set run_carry = carry -%}
      {%- if carry is not none -%}
        {%- set needing = run_query(_cdc_carry_needed_sql(
              carry, '(' ~ changes_sql ~ ') as changes', state_relation)).rows[0][0] | int -%}
        {%- if needing == 0 -%}
          {%- set run_carry = none -%}
          {%- set changes_sql = readable_batch_sql -%}
        {%- endif -%}
      {%- endif -%}
      {%- if compact -%}
        {%- set staged_sql = _cdc_state_merge_sql(
              changes_sql ~ " union all select " ~ state_columns | join(', ')
              ~ " from " ~ state_relation ~ " where cdc_bucket = " ~ _cdc_partition('delta'),
              state_columns, unique_key, state_relation, buckets, retention_days, run_carry) -%}
      {%- else -%}
        {#- up to 500k batch rows, their keys are broadcast (tens of MB at most) -#}
        {%- set staged_sql = _cdc_delta_merge_sql(
              changes_sql, state_columns, unique_key, state_relation, run_carry,
              small_batch=batch_stats[1] | int <= 500000) -%}
      {%- endif -%}
      {{ _cdc_stage(staging_relation, state_relation, staged_sql) }}
      {{ _cdc_record_run(runs_relation, loaded_through, 'staged', kind) }}
      {{ cdc_after_staging(this) }}
      {{ _cdc_apply_staging(state_relation, staging_relation, kind) }}
      {{ _cdc_record_run(runs_relation, loaded_through, 'applied', kind) }}
      {{ adapter.drop_relation(staging_relation) }}
    {%- endif -%}
  {%- endif -%}

  {%- if existing_target is not none and existing_target.type != 'view' -%}
    {{ adapter.drop_relation(existing_target) }}
  {%- endif -%}
  {% call statement('cdc_publish_view') %}
    {{ _cdc_current_view_sql(target_relation, state_relation, published_columns, unique_key, delete_mode, carry) }}
  {% endcall %}
  {{ cdc_record_read_through(state_relation, inputs_read_through, previous=previous_read_through) }}

  {% do apply_grants(target_relation, config.get('grants'), should_revoke(existing_target, full_refresh_mode=full_refresh)) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
