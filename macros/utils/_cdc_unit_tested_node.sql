{% macro _cdc_unit_tested_node() %}
  {#-
      The model a dbt unit test tests, as {name, config, columns}; none outside a unit test.
      dbt (1.11) runs a unit test as a node of its own whose config is the test's
      (materialized 'unit'): nothing of the tested model's config or YAML reaches it, and
      the graph it runs in holds the test alone. What the package needs of the model comes
      from two places: the `config(...)` call of the model's SQL (its text is the test's:
      materialized, unique_key, cdc_delete_mode...), and the test's `overrides.vars`
      `cdc_unit_test_model`, shaped as the model's YAML entry ({config: {meta: ...},
      columns: [...]}), for what lives in YAML (a typed contract's meta and columns); the
      latter wins. Read by spark__get_unit_test_sql and cdc_typed_change_log.
  -#}
  {%- if not execute or model is none or model.resource_type != 'unit_test' -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set found = {} -%}
  {%- set call = modules.re.search('\\{\\{-?\\s*config\\s*\\((.*?)\\)\\s*-?\\}\\}', model.raw_code, modules.re.S) -%}
  {%- if call -%}
    {%- set arguments = modules.re.sub('(^|[,(]\\s*)([A-Za-z_]\\w*)\\s*=(?!=)', '\\1\\2: ', call.group(1) | trim) -%}
    {%- set found = fromyaml('{' ~ arguments ~ '}') or {} -%}
  {%- endif -%}
  {%- set declared = cdc_lakehouse.cdc_var('cdc_unit_test_model') or {} -%}
  {%- set config = {} -%}
  {%- do config.update(found) -%}
  {%- do config.update(declared.get('config', {})) -%}
  {%- set columns = {} -%}
  {%- for column in declared.get('columns', []) -%}
    {%- do columns.update({column.name: {
          'name': column.name,
          'data_type': column.get('data_type'),
          'meta': column.get('meta', {})}}) -%}
  {%- endfor -%}
  {{ return({
      'name': model.tested_node_unique_id.split('.')[-1],
      'config': config,
      'columns': columns,
  }) }}
{% endmacro %}
