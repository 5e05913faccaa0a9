{% materialization cdc_incremental, adapter='spark', supported_languages=['sql', 'python'] -%}
  {%- set raw_file_format = config.get('file_format', default='parquet') -%}
  {%- set raw_strategy = config.get('incremental_strategy') or 'append' -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set file_format = dbt_spark_validate_get_file_format(raw_file_format) -%}
  {%- set strategy = dbt_spark_validate_get_incremental_strategy(raw_strategy, file_format) -%}

  {%- set unique_key = config.get('unique_key', none) -%}
  {%- set partition_by = config.get('partition_by', none) -%}
  {%- set language = model['language'] -%}
  {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore') -%}
  {%- set incremental_predicates = config.get('predicates', none) or config.get('incremental_predicates', none) -%}
  {%- set target_relation = this -%}
  {%- set existing_relation = load_relation(this) -%}
  {%- set tmp_relation = this.incorporate(path={"identifier": this.identifier ~ '__dbt_tmp'}) -%}
  {%- if language == 'sql' -%}
    {%- set tmp_relation = tmp_relation.include(database=false, schema=false) -%}
  {%- endif -%}

  {%- set rebuild = existing_relation is none or existing_relation.is_view or should_full_refresh() -%}
  {%- set inputs_read_through = cdc_lakehouse._cdc_inputs_read_through() -%}
  {%- set up_to_date = not rebuild and cdc_lakehouse._cdc_is_up_to_date(existing_relation, inputs_read_through) -%}
  {%- set nothing_new = not rebuild and cdc_lakehouse._cdc_no_new_input_marker() in compiled_code -%}
  {%- set unchanged = up_to_date or nothing_new -%}

  {%- if strategy in ['insert_overwrite', 'microbatch'] and partition_by and not unchanged -%}
    {%- call statement() -%}
      set spark.sql.sources.partitionOverwriteMode = DYNAMIC
    {%- endcall -%}
  {%- endif -%}

  {{ run_hooks(pre_hooks) }}

  {%- if unchanged -%}
    {{ log("incremental: " ~ target_relation ~ " holds everything its inputs hold, left as it is") }}
    {{ cdc_lakehouse._cdc_main_unchanged('inputs unchanged') }}
    {%- if inputs_read_through is not none
          and cdc_lakehouse._cdc_read_through(existing_relation) != inputs_read_through -%}
      {{ cdc_lakehouse._cdc_record_read_through(
            existing_relation, inputs_read_through, previous=cdc_lakehouse._cdc_read_through(existing_relation),
            rows=false) }}
    {%- endif -%}
  {%- elif rebuild -%}
    {%- if existing_relation is not none
          and not (file_format == 'delta' and existing_relation.is_delta) -%}
      {% do adapter.drop_relation(existing_relation) %}
    {%- endif -%}
    {%- call statement('main', language=language) -%}
      {{ create_table_as(False, target_relation, compiled_code, language) }}
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_forget_relation(target_relation) -%}
    {% do persist_constraints(target_relation, model) %}
    {%- set summary = cdc_lakehouse._cdc_summarise_write(target_relation, inputs_read_through) -%}
    {{ cdc_lakehouse._cdc_record_read_through(
          target_relation, summary.read_through, extra=summary.properties, built=true) }}
  {%- else -%}
    {%- set previous = cdc_lakehouse._cdc_read_through(existing_relation) -%}
    {{ cdc_lakehouse._cdc_record_read_through(existing_relation, none, when='before') }}
    {%- if language == 'sql' and strategy == 'append' and on_schema_change == 'ignore' -%}
      {%- call statement('main') -%}
        {{ cdc_lakehouse._cdc_append_sql(compiled_code, target_relation) }}
      {%- endcall -%}
    {%- else -%}
      {%- call statement('create_tmp_relation', language=language) -%}
        {{ create_table_as(True, tmp_relation, compiled_code, language) }}
      {%- endcall -%}
      {%- do process_schema_changes(on_schema_change, tmp_relation, existing_relation) -%}
      {#- it may have added or dropped columns: the insert reads them again -#}
      {%- do cdc_lakehouse._cdc_forget_relation(target_relation, caches=['column_names']) -%}
      {%- call statement('main') -%}
        {#- dbt-spark's append calls the global get_insert_into_sql, which only a root project overrides -#}
        {%- if strategy == 'append' -%}
          {{ cdc_lakehouse.get_insert_into_sql(tmp_relation, target_relation) }}
        {%- else -%}
          {{ dbt_spark_get_incremental_sql(strategy, tmp_relation, target_relation, existing_relation, unique_key, incremental_predicates) }}
        {%- endif -%}
      {%- endcall -%}
      {%- if language == 'python' -%}
        {% call statement('drop_relation') -%}
          drop table if exists {{ tmp_relation }}
        {%- endcall %}
      {%- else -%}
        {%- do cdc_lakehouse._cdc_release_temp_view(tmp_relation) -%}
      {%- endif -%}
    {%- endif -%}
    {%- set summary = cdc_lakehouse._cdc_summarise_write(target_relation, inputs_read_through, since=previous) -%}
    {{ cdc_lakehouse._cdc_record_read_through(
          target_relation, summary.read_through, previous=previous, extra=summary.properties,
          built=on_schema_change in ['append_new_columns', 'sync_all_columns']) }}
  {%- endif -%}

  {% set should_revoke = should_revoke(existing_relation, full_refresh_mode) %}
  {% do apply_grants(target_relation, grant_config, should_revoke) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks) }}
  {%- if rebuild -%}
    {%- do cdc_lakehouse._cdc_forget_relation(target_relation) -%}
  {%- elif not (unchanged or (language == 'sql' and strategy == 'append' and on_schema_change == 'ignore')) -%}
    {%- do cdc_lakehouse._cdc_forget_relation(target_relation, caches=['column_names']) -%}
  {%- endif -%}

  {{ return({'relations': [target_relation]}) }}
{%- endmaterialization %}

{% macro _cdc_append_sql(sql, target_relation) %}
    {#- An incremental append in one statement: get_insert_into_sql over the model's SQL as a subquery. -#}
    {{ return(cdc_lakehouse.get_insert_into_sql('(\n' ~ sql ~ '\n) as cdc_appended', target_relation)) }}
{% endmacro %}
