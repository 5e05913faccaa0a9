{% materialization incremental, adapter='spark', supported_languages=['sql', 'python'] -%}
  {#- `incremental` is cdc_incremental where this project is the root project; a project
      that installs it as a package keeps dbt-spark's (dbt uses a package's override of a
      built-in materialization only when the root project asks for it) -#}
  {{ return(cdc_lakehouse.materialization_cdc_incremental_spark()) }}
{%- endmaterialization %}
