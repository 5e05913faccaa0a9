{% materialization view, adapter='spark' -%}
  {#- `view` is the package's cdc_view in this project (see incremental.sql) -#}
  {{ return(cdc_lakehouse.materialization_cdc_view_spark()) }}
{%- endmaterialization %}
