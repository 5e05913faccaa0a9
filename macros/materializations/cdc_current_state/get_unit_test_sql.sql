{% macro get_unit_test_sql(main_sql, expected_fixture_sql, expected_column_names) %}
  {{ return(cdc_lakehouse.spark__get_unit_test_sql(main_sql, expected_fixture_sql, expected_column_names)) }}
{% endmacro %}

{% macro spark__get_unit_test_sql(main_sql, expected_fixture_sql, expected_column_names) %}
  {#- dbt's unit test query, for a cdc_current_state model: its current rows. -#}
  {%- set tested = cdc_lakehouse._cdc_unit_tested_node() -%}
  {%- if tested is not none and tested.config.get('materialized') == 'cdc_current_state' -%}
    {%- set main_sql = cdc_lakehouse._cdc_current_rows_of_changes(main_sql, tested.config) -%}
  {%- endif -%}
  {{ return(dbt.default__get_unit_test_sql(main_sql, expected_fixture_sql, expected_column_names)) }}
{% endmacro %}

{% macro _cdc_current_rows_of_changes(changes_sql, node_config) %}
  {#- The current rows a cdc_current_state model publishes when built from `changes_sql`. -#}
  {%- set cdc = cdc_lakehouse._cdc_current_state_config(node_config) -%}
  {%- set described = cdc_lakehouse._cdc_query_columns(changes_sql) -%}
  {%- set model_columns = described | map(attribute='name') | list -%}
  {%- set state_columns = model_columns | reject('in', ['_cdc_error_reason']) | list -%}
  {%- set readable_only = 'where _cdc_error_reason is null' if '_cdc_error_reason' in model_columns else '' -%}
  {%- set state_sql = cdc_lakehouse._cdc_state_merge_sql(
        "select * from (" ~ changes_sql ~ ") as model_changes " ~ readable_only,
        state_columns, cdc.unique_key, none, cdc.buckets, cdc.retention_days) -%}
  {{ return(cdc_lakehouse._cdc_current_rows_sql(
        '(' ~ state_sql ~ ')', state_columns | reject('in', ['_cdc_sort_key']) | list,
        cdc.unique_key, cdc.delete_mode, cdc.columns_on_read, cdc.unpublished_columns)) }}
{% endmacro %}
