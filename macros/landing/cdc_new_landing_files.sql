{% macro cdc_new_landing_files(loaded_files_relation) %}
    {#-
        Returns the landing files (full `binaryFile` paths) that `loaded_files_relation`
        (a relation with `_source_file` and `_source_file_modified_at`) does not hold yet
        in their current version, sorted by path. A file rewritten since it was loaded
        (new modification time) is read again: its messages that were already loaded
        become duplicates, which the pipeline absorbs, and none of its new ones is lost.
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
            select distinct
                _source_file,
                _source_file_modified_at
            from {{ loaded_files_relation }}
        ) as loaded
            on listing.path = loaded._source_file
            and listing.modificationtime = loaded._source_file_modified_at
        order by listing.path
    {%- endset -%}
    {%- set result = run_query(query) -%}
    {{ return(result.columns[0].values() | list) }}
{% endmacro %}
