{% macro _cdc_latest_versions_rows(registry) %}
    {#- The number of rows of a table of latest versions (parquet footers: no scan). -#}
    {{ return(run_query('select count(*) from ' ~ registry).columns[0].values()[0] | int) }}
{% endmacro %}
