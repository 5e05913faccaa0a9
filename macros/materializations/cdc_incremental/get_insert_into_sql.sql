{% macro get_insert_into_sql(source_relation, target_relation) %}
    insert into table {{ target_relation }}
    select {{ cdc_lakehouse._cdc_quote_list(cdc_lakehouse._cdc_column_names(target_relation)) }} from {{ source_relation }}
{% endmacro %}
