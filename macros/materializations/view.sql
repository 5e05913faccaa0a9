{% materialization view, adapter='spark' -%}
  {#- `view` is cdc_view where this project is the root project (see incremental.sql) -#}
  {{ return(cdc_lakehouse.materialization_cdc_view_spark()) }}
{%- endmaterialization %}
