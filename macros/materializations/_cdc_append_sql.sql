{% macro _cdc_append_sql(sql, target_relation) %}
    {#-
        An incremental append in one statement: `insert into <target> select <the target's
        columns> from (<the model's SQL>)`. dbt-spark stages the SQL as a temporary view and
        inserts from the view, and Spark analyses the plan for each of the two statements
        (stg_cdc__messages: 2 to 3 s of a small run). For a model whose schema changes are
        ignored (on_schema_change 'ignore') the staged view is read by nothing else.
        Columns are quoted by cdc_quote, as in get_insert_into_sql.
    -#}
    {%- set dest_columns = adapter.get_columns_in_relation(target_relation) -%}
    insert into table {{ target_relation }}
    select {{ cdc_quote_list(dest_columns | map(attribute='name') | list) }}
    from (
{{ sql }}
    ) as cdc_appended
{% endmacro %}
