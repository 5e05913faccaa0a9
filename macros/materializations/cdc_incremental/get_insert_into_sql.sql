{% macro get_insert_into_sql(source_relation, target_relation) %}
    {#-
        dbt-spark's append of an incremental run (`insert into ... select <columns>`),
        overridden: its column list quotes a name in backticks without doubling one inside
        it, so a typed column named as a source may name it (na`me) broke the statement.
        Here each column is quoted by cdc_quote. The columns are read once per invocation
        (_cdc_column_names).
    -#}
    insert into table {{ target_relation }}
    select {{ cdc_lakehouse._cdc_quote_list(cdc_lakehouse._cdc_column_names(target_relation)) }} from {{ source_relation }}
{% endmacro %}
