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
        cdc_snapshot_reconciliation  (var of the same name) off (default) or delete: keys
                           a completed blocking snapshot of their table did not read, and
                           that no change after its start touched, are deleted (as
                           cdc_delete_mode deletes); needs `-- depends_on:
                           {{ ref('int_cdc__snapshots') }}` in the model
        cdc_columns_on_read  {column: SQL expression over the model's columns}: columns
                           the published view computes for the current rows, when a query
                           reads them, instead of storing them for every change (work that
                           only the current row needs, such as decoding its row image);
                           each may read the ones before it
        cdc_unpublished_columns  columns kept in the state for cdc_columns_on_read but not
                           shown by the view (the message schema's column types), or
                           columns on read that only later ones read
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

      Shape (like dbt's incremental): validate (_cdc_current_state_config), leave the
      state as it is when its inputs hold nothing new (_cdc_is_up_to_date), plan the run
      (_cdc_current_state_plan), write through the path the plan names
      (_cdc_write_rebuild, _cdc_write_merge_into, _cdc_write_merge_on_read: each issues
      the `main` statement), publish the view (only when its SQL changed: the state
      table's property `cdc.published_view`), record the read-through and the run
      (`cdc.run.*`, decision 0023) in one statement, grants, docs.
  -#}
  {%- set cdc = cdc_lakehouse._cdc_current_state_config() -%}
  {%- set target_relation = this.incorporate(type='view') -%}
  {%- set state_relation = cdc_lakehouse._cdc_companion_relation('__cdc_state') -%}
  {%- set existing_state = adapter.get_relation(
        database=state_relation.database, schema=state_relation.schema,
        identifier=state_relation.identifier) -%}
  {%- set existing_target = adapter.get_relation(
        database=this.database, schema=this.schema, identifier=this.identifier) -%}

  {#- Inputs that hold nothing the state has not applied: no Spark job at all -#}
  {%- set inputs_read_through = cdc_lakehouse._cdc_inputs_read_through() -%}
  {%- set previous_read_through = cdc_lakehouse._cdc_read_through(existing_state) if not should_full_refresh() else none -%}
  {%- if existing_target is not none and existing_target.type == 'view'
        and cdc_lakehouse._cdc_is_up_to_date(existing_state, inputs_read_through) -%}
    {{ run_hooks(pre_hooks) }}
    {{ log("cdc_current_state: " ~ this ~ " has applied everything its inputs hold, left as it is") }}
    {{ cdc_lakehouse._cdc_main_unchanged('inputs unchanged') }}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [target_relation]}) }}
  {%- endif -%}

  {{ run_hooks(pre_hooks) }}

  {%- set plan = cdc_lakehouse._cdc_current_state_plan(cdc, sql, existing_state) -%}
  {%- set write_paths = {
        'rebuild': cdc_lakehouse._cdc_write_rebuild,
        'merge_into': cdc_lakehouse._cdc_write_merge_into,
        'merge_on_read': cdc_lakehouse._cdc_write_merge_on_read,
  } -%}
  {#- a completed snapshot acts as a truncate at its start (_cdc_snapshot_markers) -#}
  {%- set changes_sql = sql -%}
  {%- if cdc.snapshot_reconciliation != 'off' -%}
    {%- set changes_sql = cdc_lakehouse._cdc_snapshot_markers(plan, sql) -%}
  {%- endif -%}
  {{ write_paths[plan.write_path](plan, changes_sql) }}

  {%- if existing_target is not none and existing_target.type != 'view' -%}
    {{ adapter.drop_relation(existing_target) }}
  {%- endif -%}
  {#- the published view is created again only when its SQL changed (_cdc_publish_view) -#}
  {{ cdc_lakehouse._cdc_publish_view(
        cdc_lakehouse._cdc_current_view_sql(
            target_relation, state_relation, plan.published_columns, cdc.unique_key,
            cdc.delete_mode, plan.carry, cdc.columns_on_read, cdc.unpublished_columns),
        state_relation, existing_target, force=plan.write_path == 'rebuild') }}
  {#- with the read-through, in the same statement: the state's columns, the model's
      columns and types, and the write path's `applied` run record (_cdc_run_properties;
      none when nothing was new) -#}
  {%- set extra = {
        'cdc.state_columns': cdc_lakehouse._cdc_state_columns_fingerprint(plan.state_columns),
        'cdc.model_columns': plan.model_columns,
  } -%}
  {%- do extra.update(plan.get('run_record', {})) -%}
  {{ cdc_lakehouse._cdc_record_read_through(state_relation, inputs_read_through, previous=previous_read_through,
        extra=extra) }}

  {% set should_revoke = should_revoke(existing_target, full_refresh_mode=plan.write_path == 'rebuild') %}
  {% do apply_grants(target_relation, config.get('grants'), should_revoke) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
