{% macro _cdc_current_state_plan(cdc, sql, existing_state) %}
  {#- What a cdc_current_state run will do, after checking the model's columns. -#}
  {%- set described = cdc_lakehouse._cdc_query_columns(sql) -%}
  {%- set model_columns = described | map(attribute='name') | list -%}
  {%- for required in ['_cdc_op', '_cdc_sort_key', '_cdc_source_id', '_cdc_source_ts', '_loaded_at'] + cdc.unique_key | map('lower') | list -%}
    {%- if required not in model_columns -%}
      {{ exceptions.raise_compiler_error(
          "cdc_current_state model " ~ this ~ " must select column '" ~ required
          ~ "'; it selects: " ~ model_columns | join(', ')
      ) }}
    {%- endif -%}
  {%- endfor -%}
  {%- for name in cdc.columns_on_read if name | lower in model_columns -%}
    {{ exceptions.raise_compiler_error(
        "cdc_current_state model " ~ this ~ " selects column '" ~ name ~ "' and also computes it "
        ~ "on read (cdc_columns_on_read): name it once"
    ) }}
  {%- endfor -%}
  {%- for name in cdc.unpublished_columns if name not in model_columns
        and name not in cdc.columns_on_read | map('lower') | list -%}
    {{ exceptions.raise_compiler_error(
        "cdc_current_state model " ~ this ~ ": cdc_unpublished_columns names '" ~ name
        ~ "', which it does not select; it selects: " ~ model_columns | join(', ')
    ) }}
  {%- endfor -%}
  {%- set state_columns = model_columns | reject('in', ['_cdc_error_reason']) | list -%}
  {%- set full_refresh = should_full_refresh() or existing_state is none -%}
  {#- the state records an md5 of its columns (cdc.state_columns): the same md5, no `describe` -#}
  {%- if not full_refresh and cdc_lakehouse._cdc_table_properties(existing_state).get('cdc.state_columns')
        != cdc_lakehouse._cdc_state_columns_fingerprint(state_columns) -%}
    {%- set existing_columns = adapter.get_columns_in_relation(existing_state)
          | map(attribute='name') | map('lower')
          | reject('in', ['_cdc_is_deleted', 'cdc_bucket']) | list -%}
    {%- if existing_columns | sort != state_columns | sort -%}
      {{ exceptions.raise_compiler_error(
          "The columns of " ~ this ~ " changed (state has: " ~ existing_columns | sort | join(', ')
          ~ "; the model now selects: " ~ state_columns | sort | join(', ') ~ "). Rebuild it "
          ~ "from the change log with: dbt build --full-refresh --select " ~ model.name
      ) }}
    {%- endif -%}
  {%- endif -%}
  {{ return({
      'cdc': cdc,
      'write_path': 'rebuild' if full_refresh else ('merge_into' if cdc.merge_into else 'merge_on_read'),
      'state_relation': cdc_lakehouse._cdc_companion_relation('__cdc_state'),
      'runs_relation': cdc_lakehouse._cdc_companion_relation('__cdc_runs'),
      'staging_relation': cdc_lakehouse._cdc_companion_relation('__cdc_staging'),
      'batch_relation': cdc_lakehouse._cdc_companion_relation('__cdc_batch'),
      'state_columns': state_columns,
      'published_columns': state_columns | reject('in', ['_cdc_sort_key']) | list,
      'readable_only': 'where _cdc_error_reason is null' if '_cdc_error_reason' in model_columns else '',
      'readable': '_cdc_error_reason is null' if '_cdc_error_reason' in model_columns else 'true',
      'run_record': {},
      'model_columns': cdc_lakehouse._cdc_model_columns_fingerprint(described),
  }) }}
{% endmacro %}

{% macro _cdc_state_columns_fingerprint(state_columns) %}
  {#- md5 of a state table's columns, whatever their order: its property `cdc.state_columns`. -#}
  {{ return(local_md5(state_columns | sort | join(','))) }}
{% endmacro %}

{% macro _cdc_model_columns_fingerprint(described) %}
  {#- md5 of a model's column names and types, whatever their order: its property `cdc.model_columns`. -#}
  {%- set pairs = [] -%}
  {%- for column in described -%}
    {%- do pairs.append(column.name ~ ' ' ~ column.type) -%}
  {%- endfor -%}
  {{ return(local_md5(pairs | sort | join(','))) }}
{% endmacro %}
