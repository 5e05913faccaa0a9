{% macro get_insert_into_sql(source_relation, target_relation) %}
    {#-
        dbt-spark's append of an incremental run (`insert into ... select <columns>`),
        overridden: its column list quotes a name in backticks without doubling one inside
        it, so a typed column named as a source may name it (na`me) broke the statement.
        Here each column is quoted by cdc_quote.
    -#}
    {%- set dest_columns = adapter.get_columns_in_relation(target_relation) -%}
    insert into table {{ target_relation }}
    select {{ cdc_lakehouse._cdc_quote_list(dest_columns | map(attribute='name') | list) }} from {{ source_relation }}
{% endmacro %}
