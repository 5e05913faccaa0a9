{% materialization cdc_current_state, adapter='spark' %}
  {%- set cdc = cdc_lakehouse._cdc_current_state_config() -%}
  {%- set target_relation = this.incorporate(type='view') -%}
  {%- set state_relation = cdc_lakehouse._cdc_companion_relation('__cdc_state') -%}
  {%- set existing_state = adapter.get_relation(
        database=state_relation.database, schema=state_relation.schema,
        identifier=state_relation.identifier) -%}
  {%- set existing_target = adapter.get_relation(
        database=this.database, schema=this.schema, identifier=this.identifier) -%}

  {#- inputs that hold nothing the state has not applied: no Spark job at all -#}
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
  {%- set changes_sql = sql -%}
  {%- if cdc.snapshot_reconciliation != 'off' -%}
    {%- set changes_sql = cdc_lakehouse._cdc_snapshot_markers(plan, sql) -%}
  {%- endif -%}
  {{ write_paths[plan.write_path](plan, changes_sql) }}

  {%- if existing_target is not none and existing_target.type != 'view' -%}
    {{ adapter.drop_relation(existing_target) }}
  {%- endif -%}
  {{ cdc_lakehouse._cdc_publish_view(
        cdc_lakehouse._cdc_current_view_sql(
            target_relation, state_relation, plan.published_columns, cdc.unique_key,
            cdc.delete_mode, cdc.columns_on_read, cdc.unpublished_columns),
        state_relation, existing_target, force=plan.write_path == 'rebuild') }}
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

{% macro _cdc_snapshot_markers(plan, sql) %}
  {#- The model's change rows plus a truncate per completed blocking snapshot. -#}
  {%- set depends_on = [] -%}
  {%- for node in model.depends_on.nodes -%}
    {%- do depends_on.append(node.split('.')[-1]) -%}
  {%- endfor -%}
  {%- if 'int_cdc__snapshots' not in depends_on -%}
    {{ exceptions.raise_compiler_error(
        "cdc_current_state model " ~ this ~ " sets cdc_snapshot_reconciliation='"
        ~ plan.cdc.snapshot_reconciliation ~ "' (accepted: off, delete), which reads "
        ~ "int_cdc__snapshots: add the line  -- depends_on: {{ ref('int_cdc__snapshots') }}  "
        ~ "to the model, or set it to off"
    ) }}
  {%- endif -%}
  {%- set columns = plan.state_columns + (['_cdc_error_reason'] if plan.readable_only else []) -%}
  {%- set markers_sql -%}
    select {{ cdc_lakehouse._cdc_quote_list(columns) }} from (
        {{ sql }}
    ) as model_changes

    union all

    select
      {%- for column in columns %}
      {%- if column == '_cdc_source_id' %}
        _cdc_source_id
      {%- elif column == '_cdc_sort_key' %}
        reconciles_before
      {%- elif column == '_cdc_op' %}
        't'
      {%- elif column == '_loaded_at' %}
        completed_loaded_at
      {%- else %}
        null
      {%- endif %} as {{ cdc_lakehouse.cdc_quote(column) }}{{ "," if not loop.last }}
      {%- endfor %}
    from {{ ref('int_cdc__snapshots') }}
    where is_complete
  {%- endset -%}
  {{ return(markers_sql) }}
{% endmacro %}
