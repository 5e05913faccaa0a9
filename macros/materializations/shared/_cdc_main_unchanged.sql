{% macro _cdc_main_unchanged(status) %}
    {#- Stores the `main` result of a node that writes nothing, without a Spark statement.
        A `select '<status>'` sent for dbt's result would be a round trip (gRPC or Thrift) that tells the run nothing. -#}
    {%- do store_raw_result('main', message=status, code='OK', rows_affected=-1) -%}
{% endmacro %}
