{% macro _cdc_append_sql(sql, target_relation) %}
    {#-
        An incremental append in one statement.
        It is get_insert_into_sql (`insert into <target> select <the target's columns, quoted by
        cdc_quote>`) from the model's SQL as a subquery. dbt-spark stages the SQL as a temporary
        view and inserts from the view, and Spark analyses the plan for each of the two
        statements (stg_cdc__messages: 2 to 3 s of a small run). For a model whose schema
        changes are ignored (on_schema_change 'ignore') the staged view is read by nothing else.
    -#}
    {{ return(cdc_lakehouse.get_insert_into_sql('(\n' ~ sql ~ '\n) as cdc_appended', target_relation)) }}
{% endmacro %}
