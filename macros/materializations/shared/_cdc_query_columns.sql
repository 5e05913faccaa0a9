{% macro _cdc_query_columns(sql) %}
  {#- The columns of a query, in order, from one `describe query`: a list of {name, type}, lower case. -#}
  {%- set columns = [] -%}
  {%- for row in run_query('describe query ' ~ sql).rows -%}
    {%- do columns.append({'name': row[0] | lower, 'type': row[1] | lower}) -%}
  {%- endfor -%}
  {{ return(columns) }}
{% endmacro %}
