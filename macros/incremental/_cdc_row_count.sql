{% macro _cdc_row_count(relation, condition='true') %}
    {#-
        The number of rows of `relation` meeting `condition`.
        A condition such as `_loaded_at > <literal>` lets the parquet reader count from the
        new loads' files, reading one column. 0 at parse time.
    -#}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set query -%}
        select count(*) from {{ relation }} where {{ condition }}
    {%- endset -%}
    {{ return(run_query(query).columns[0].values()[0] | int) }}
{% endmacro %}
