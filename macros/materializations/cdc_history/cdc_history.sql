{% materialization cdc_history, adapter='spark' %}
  {%- set unique_key = config.get('unique_key') -%}
  {%- if unique_key is string -%}
    {%- set unique_key = [unique_key] -%}
  {%- endif -%}
  {%- if not unique_key -%}
    {{ exceptions.raise_compiler_error(
        "cdc_history model " ~ this ~ " needs config unique_key: the table's key columns") }}
  {%- endif -%}
  {%- set compaction_ratio = config.get('cdc_compaction_ratio', cdc_lakehouse.cdc_var('cdc_compaction_ratio')) | float -%}
  {%- set target_relation = this.incorporate(type='view') -%}
  {%- set state_relation = cdc_lakehouse._cdc_companion_relation('__cdc_state') -%}
  {%- set existing_state = adapter.get_relation(
        database=state_relation.database, schema=state_relation.schema,
        identifier=state_relation.identifier) -%}
  {%- set existing_target = adapter.get_relation(
        database=this.database, schema=this.schema, identifier=this.identifier) -%}

  {%- set inputs_read_through = cdc_lakehouse._cdc_inputs_read_through() -%}
  {%- if existing_target is not none and existing_target.type == 'view'
        and cdc_lakehouse._cdc_is_up_to_date(existing_state, inputs_read_through) -%}
    {{ run_hooks(pre_hooks) }}
    {{ log("cdc_history: " ~ this ~ " has applied everything its inputs hold, left as it is") }}
    {{ cdc_lakehouse._cdc_main_unchanged('inputs unchanged') }}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [target_relation]}) }}
  {%- endif -%}

  {{ run_hooks(pre_hooks) }}

  {%- set columns = cdc_lakehouse._cdc_history_columns(sql, unique_key) -%}
  {%- set readable_sql -%}
    select * from ({{ sql }}) as model_changes
    {%- if columns.has_error_reason %}
    where _cdc_error_reason is null
    {%- endif %}
  {%- endset -%}
  {%- set stored_columns = cdc_lakehouse._cdc_history_stored_columns(columns.key, columns.value) -%}
  {%- set previous_read_through = none -%}
  {%- set rebuild = should_full_refresh() or existing_state is none -%}
  {%- if not rebuild -%}
    {%- set previous_read_through = cdc_lakehouse._cdc_read_through(existing_state) -%}
    {%- set existing_columns = adapter.get_columns_in_relation(existing_state)
          | map(attribute='name') | map('lower') | reject('equalto', 'cdc_bucket') | list -%}
    {%- set rebuild = existing_columns != stored_columns | map('lower') | list -%}
    {%- if rebuild -%}
      {{ log("cdc_history: the columns of " ~ this ~ " changed, resolved again from the change log", info=True) }}
    {%- endif -%}
  {%- endif -%}

  {%- if not rebuild -%}
    {%- set batch_sql -%}
      select * from ({{ readable_sql }}) as readable_changes
      where _loaded_at > {{ cdc_lakehouse._cdc_loaded_watermark(existing_state) }}
    {%- endset -%}
    {%- set batch_rows = run_query("select count(*) from (" ~ batch_sql ~ ")").rows[0][0] | int -%}
    {%- set counts = run_query(
          "select count_if(cdc_bucket = 0), count_if(cdc_bucket = " ~ cdc_lakehouse._cdc_partition('delta')
          ~ ") from " ~ state_relation).rows[0] -%}
    {%- if batch_rows == 0 -%}
      {{ cdc_lakehouse._cdc_main_unchanged('no new changes') }}
    {%- elif (counts[1] | int) + batch_rows > compaction_ratio * (counts[0] | int) -%}
      {{ log("cdc_history: " ~ this ~ "'s delta outgrew the compaction ratio, resolved again") }}
      {%- set rebuild = true -%}
    {%- else -%}
      {{ cdc_lakehouse._cdc_record_read_through(state_relation, none, when='before') }}
      {% call statement('main') %}
        insert into {{ state_relation }} partition (cdc_bucket = {{ cdc_lakehouse._cdc_partition('delta') }})
        select
          {%- for column in stored_columns %}
          {%- if column in ['valid_to', 'is_current', 'next_position', 'closing_position'] %}
          null as {{ column }}{{ ',' if not loop.last }}
          {%- else %}
          {{ cdc_lakehouse.cdc_quote(column) }}{{ ',' if not loop.last }}
          {%- endif %}
          {%- endfor %}
        from ({{ batch_sql }}) as batch
      {% endcall %}
    {%- endif -%}
  {%- endif -%}

  {%- if rebuild -%}
    {%- set previous_read_through = none -%}
    {{ adapter.drop_relation(state_relation) }}
    {%- do cdc_lakehouse._cdc_forget_relation(state_relation) -%}
    {% call statement('main') %}
      create table {{ state_relation }}
      using {{ config.get('file_format') or 'parquet' }}
      partitioned by (cdc_bucket)
      as
      select {{ cdc_lakehouse._cdc_quote_list(stored_columns) }}, 0 as cdc_bucket
      from (
        {{ cdc_lakehouse._cdc_history_sql('(' ~ readable_sql ~ ')', columns.key, columns.value, readable='true', stored=true) }}
      ) as resolved
    {% endcall %}
  {%- endif -%}

  {%- if existing_target is not none and existing_target.type != 'view' -%}
    {{ adapter.drop_relation(existing_target) }}
  {%- endif -%}
  {{ cdc_lakehouse._cdc_publish_view(
        cdc_lakehouse._cdc_history_view_sql(target_relation, state_relation, columns.key, columns.value),
        state_relation, existing_target, force=rebuild) }}
  {{ cdc_lakehouse._cdc_record_read_through(state_relation, inputs_read_through, previous=previous_read_through) }}

  {% set should_revoke = should_revoke(existing_target, full_refresh_mode=rebuild) %}
  {% do apply_grants(target_relation, config.get('grants'), should_revoke) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{% macro _cdc_history_columns(sql, unique_key) %}
  {#- The columns of a cdc_history model's SQL, checked. -#}
  {%- set described = cdc_lakehouse._cdc_query_columns(sql) -%}
  {%- set model_columns = described | map(attribute='name') | list -%}
  {%- set change_columns = ['_cdc_source_id', '_cdc_op', '_cdc_position', '_cdc_sort_key',
        '_cdc_source_ts', '_cdc_source_db', '_loaded_at'] -%}
  {%- set key = unique_key | map('lower') | reject('equalto', '_cdc_source_id') | list -%}
  {%- for required in change_columns + key if required not in model_columns -%}
    {{ exceptions.raise_compiler_error(
        "cdc_history model " ~ this ~ " must select column '" ~ required ~ "'; it selects: "
        ~ model_columns | join(', ')) }}
  {%- endfor -%}
  {{ return({
      'key': key,
      'value': model_columns | reject('in', change_columns + key + ['_cdc_error_reason']) | list,
      'has_error_reason': '_cdc_error_reason' in model_columns,
  }) }}
{% endmacro %}
