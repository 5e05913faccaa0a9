{% macro _cdc_current_state_config(node_config=none) %}
  {#- The validated config of a cdc_current_state model (the running one, or `node_config`). -#}
  {%- set config = config if node_config is none else node_config -%}
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
  {%- set file_format = config.get('file_format') or 'parquet' -%}
  {%- set merge_formats = ['delta', 'iceberg', 'hudi'] -%}
  {%- if file_format not in ['parquet'] + merge_formats -%}
    {{ exceptions.raise_compiler_error(
        "cdc_current_state model " ~ this ~ ": file_format '" ~ file_format ~ "' is not one of "
        ~ "parquet (copy-on-write buckets), delta, iceberg, hudi (MERGE INTO)"
    ) }}
  {%- endif -%}
  {%- set snapshot_reconciliation = config.get(
        'cdc_snapshot_reconciliation', cdc_lakehouse.cdc_var('cdc_snapshot_reconciliation')) -%}
  {%- if snapshot_reconciliation not in ['off', 'delete'] -%}
    {{ exceptions.raise_compiler_error(
        "cdc_snapshot_reconciliation '" ~ snapshot_reconciliation ~ "' of " ~ this
        ~ " is not one of: off, delete"
    ) }}
  {%- endif -%}
  {%- set columns_on_read = config.get('cdc_columns_on_read') or {} -%}
  {%- if columns_on_read is not mapping
        or columns_on_read.values() | reject('string') | list | length > 0 -%}
    {{ exceptions.raise_compiler_error(
        "cdc_columns_on_read of " ~ this ~ " must map column names to SQL expressions "
        ~ "(strings), e.g. {'_cdc_row_json': \"...\"}; it is: " ~ columns_on_read
    ) }}
  {%- endif -%}
  {%- set unpublished_columns = config.get('cdc_unpublished_columns') or [] -%}
  {%- if unpublished_columns is string or unpublished_columns is not iterable -%}
    {{ exceptions.raise_compiler_error(
        "cdc_unpublished_columns of " ~ this ~ " must be a list of column names; it is: "
        ~ unpublished_columns
    ) }}
  {%- endif -%}
  {{ return({
      'unique_key': unique_key,
      'unpublished_columns': unpublished_columns | map('lower') | list,
      'columns_on_read': columns_on_read,
      'snapshot_reconciliation': snapshot_reconciliation,
      'delete_mode': delete_mode,
      'file_format': file_format,
      'merge_into': file_format in merge_formats,
      'buckets': config.get('cdc_buckets', cdc_lakehouse.cdc_var('cdc_gold_buckets')) | int,
      'compaction_ratio': config.get('cdc_compaction_ratio', cdc_lakehouse.cdc_var('cdc_compaction_ratio')) | float,
      'change_data_feed': config.get(
          'cdc_change_data_feed', cdc_lakehouse.cdc_var('cdc_gold_change_data_feed')) | string | lower == 'true',
      'retention_days': config.get(
          'cdc_tombstone_retention_days', cdc_lakehouse.cdc_var('cdc_tombstone_retention_days')) | int,
  }) }}
{% endmacro %}
