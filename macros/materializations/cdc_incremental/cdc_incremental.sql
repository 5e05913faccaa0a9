{% materialization cdc_incremental, adapter='spark', supported_languages=['sql', 'python'] -%}
  {#- dbt-spark's incremental, called as it is, with the run bookkeeping around it. -#}
  {%- set file_format = dbt_spark_validate_get_file_format(config.get('file_format', default='parquet')) -%}
  {%- set strategy = dbt_spark_validate_get_incremental_strategy(
        config.get('incremental_strategy') or 'append', file_format) -%}
  {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore') -%}
  {%- set target_relation = this -%}
  {%- set existing_relation = load_relation(this) -%}

  {%- set rebuild = existing_relation is none or existing_relation.is_view or should_full_refresh() -%}
  {%- set inputs_read_through = cdc_lakehouse._cdc_inputs_read_through() -%}
  {%- set previous = none if rebuild else cdc_lakehouse._cdc_read_through(existing_relation) -%}
  {%- set unchanged = not rebuild and (cdc_lakehouse._cdc_is_up_to_date(existing_relation, inputs_read_through)
        or cdc_lakehouse._cdc_no_new_input_marker() in compiled_code) -%}
  {%- set append = not rebuild and model['language'] == 'sql' and strategy == 'append' -%}
  {%- set tmp_relation = this.incorporate(path={"identifier": this.identifier ~ '__dbt_tmp'})
        .include(database=false, schema=false) -%}

  {%- if unchanged -%}
    {{ run_hooks(pre_hooks) }}
    {{ log("incremental: " ~ target_relation ~ " holds everything its inputs hold, left as it is") }}
    {{ cdc_lakehouse._cdc_main_unchanged('inputs unchanged') }}
    {%- if inputs_read_through is not none and previous != inputs_read_through -%}
      {{ cdc_lakehouse._cdc_record_read_through(existing_relation, inputs_read_through, previous=previous, rows=false) }}
    {%- endif -%}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [target_relation]}) }}
  {%- endif -%}

  {%- if not rebuild -%}
    {{ cdc_lakehouse._cdc_record_read_through(existing_relation, none, when='before') }}
  {%- endif -%}
  {%- if append -%}
    {{ run_hooks(pre_hooks) }}
    {{ cdc_lakehouse._cdc_append(existing_relation, on_schema_change, tmp_relation) }}
    {% do apply_grants(target_relation, config.get('grants'), should_revoke(existing_relation, false)) %}
    {% do persist_docs(target_relation, model) %}
  {%- else -%}
    {#- the post-hooks run after the record below (bronze's reads it) -#}
    {%- do context.update({'post_hooks': []}) -%}
    {%- do dbt.materialization_incremental_spark() -%}
    {%- do context.update({'post_hooks': post_hooks}) -%}
    {%- if not rebuild and model['language'] == 'sql' -%}
      {%- do cdc_lakehouse._cdc_release_temp_view(tmp_relation) -%}
    {%- endif -%}
  {%- endif -%}

  {#- a table created again is described again by its summary, and by the nodes after it,
      as is one whose columns the run may have changed -#}
  {%- if rebuild -%}
    {%- do cdc_lakehouse._cdc_forget_relation(target_relation) -%}
  {%- endif -%}
  {%- set summary = cdc_lakehouse._cdc_summarise_write(target_relation, inputs_read_through, since=previous) -%}
  {{ cdc_lakehouse._cdc_record_read_through(
        target_relation, summary.read_through, previous=previous, extra=summary.properties,
        built=rebuild or on_schema_change in ['append_new_columns', 'sync_all_columns']) }}
  {{ run_hooks(post_hooks) }}
  {%- if rebuild -%}
    {%- do cdc_lakehouse._cdc_forget_relation(target_relation) -%}
  {%- elif not (append and on_schema_change == 'ignore') -%}
    {%- do cdc_lakehouse._cdc_forget_relation(target_relation, caches=['column_names']) -%}
  {%- endif -%}

  {{ return({'relations': [target_relation]}) }}
{%- endmaterialization %}

{% macro _cdc_append(existing_relation, on_schema_change, tmp_relation) %}
  {#- The `main` statement of an append: one `insert ... select` of the model's SQL. -#}
  {%- if on_schema_change == 'ignore' -%}
    {%- call statement('main') -%}
      {{ cdc_lakehouse.get_insert_into_sql('(\n' ~ compiled_code ~ '\n) as cdc_appended', this) }}
    {%- endcall -%}
  {%- else -%}
    {%- call statement('create_tmp_relation') -%}
      {{ create_table_as(True, tmp_relation, compiled_code) }}
    {%- endcall -%}
    {%- do process_schema_changes(on_schema_change, tmp_relation, existing_relation) -%}
    {%- do cdc_lakehouse._cdc_forget_relation(this, caches=['column_names']) -%}
    {%- call statement('main') -%}
      {{ cdc_lakehouse.get_insert_into_sql(tmp_relation, this) }}
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_release_temp_view(tmp_relation) -%}
  {%- endif -%}
{% endmacro %}
