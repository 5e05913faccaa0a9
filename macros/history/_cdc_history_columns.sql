{% macro _cdc_history_columns(sql, unique_key) %}
  {#- The columns of a cdc_history model's SQL, checked. -#}
  {%- set model_columns = get_columns_in_query(sql) | map('lower') | list -%}
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
