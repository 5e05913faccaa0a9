{% materialization incremental, adapter='spark', supported_languages=['sql', 'python'] -%}
  {#- `incremental` is the package's cdc_incremental in this project (dbt uses an override
      of a built-in materialization only where the root project defines it) -#}
  {{ return(cdc_lakehouse.materialization_cdc_incremental_spark()) }}
{%- endmaterialization %}
