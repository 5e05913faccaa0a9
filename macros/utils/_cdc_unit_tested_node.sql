{% macro _cdc_unit_tested_node() %}
  {#- The model a dbt unit test tests, as {name, config, columns}; none outside a unit test. -#}
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
