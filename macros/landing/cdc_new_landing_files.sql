{% macro cdc_new_landing_files(loaded_files_relation) %}
    {#-
        Returns the landing files (full `binaryFile` paths) that `loaded_files_relation`
        (a relation with a `_source_file` column) does not hold yet, sorted by path.
        Returns none when the relation does not exist yet: the caller reads everything.
    -#}
    {%- if not execute or loaded_files_relation is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set listing = cdc_landing_files_relation() -%}
    {%- set query -%}
        select listing.path
        from {{ listing }} as listing
        left anti join (
            select distinct _source_file from {{ loaded_files_relation }}
        ) as loaded
            on listing.path = loaded._source_file
        order by listing.path
    {%- endset -%}
    {%- set result = run_query(query) -%}
    {{ return(result.columns[0].values() | list) }}
{% endmacro %}
