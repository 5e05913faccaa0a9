{% macro _cdc_main_unchanged(status) %}
    {#-
        Stores the `main` result of a node that writes nothing, without a Spark statement.
        `status` says why it writes nothing: inputs unchanged, view unchanged, no new changes.
        dbt reads a node's result from its `main` statement; a `select '<status>'` sent only
        for that is a round trip (a gRPC call and a plan on Spark Connect, a Thrift call on a
        Thrift Server) that answers nothing the run does not know. The result is stored as
        dbt stores a statement's: its message is `status`.
    -#}
    {%- do store_raw_result('main', message=status, code='OK', rows_affected=-1) -%}
{% endmacro %}
