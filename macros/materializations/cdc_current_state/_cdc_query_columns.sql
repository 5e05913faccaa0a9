{% macro _cdc_query_columns(sql) %}
  {#-
      The columns of a query, in order: a list of {name, type}, lower case.
      One `describe query` (Spark analyses the query, reads no data): the plan's columns and
      the carry-over's typed columns (_cdc_carry_spec) both come from it, where dbt's
      get_columns_in_query and a second `describe query` were two statements.
  -#}
  {%- set columns = [] -%}
  {%- for row in run_query('describe query ' ~ sql).rows -%}
    {%- do columns.append({'name': row[0] | lower, 'type': row[1] | lower}) -%}
  {%- endfor -%}
  {{ return(columns) }}
{% endmacro %}
