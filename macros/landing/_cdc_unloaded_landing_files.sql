{% macro _cdc_unloaded_landing_files(bronze_relation) %}
    {#-
        The landing files bronze does not hold yet in their current version.
        Returns the landing files (full `binaryFile` paths) that bronze (`bronze_relation`)
        does not hold yet in their current version, sorted by path, found in its table of
        loaded files (_cdc_loaded_files_sql), not by reading bronze. A file rewritten since
        it was loaded (new modification time) is read again: its messages that were already
        loaded become duplicates, which the pipeline absorbs, and none of its new ones is
        lost. Returns none when the relation is none (bronze's first run): the caller reads
        everything. The zero-byte files among them and those Spark's listing skips are noted
        (_cdc_note_unlisted_landing_files).
    -#}
    {%- if not execute or bronze_relation is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set listing = cdc_lakehouse._cdc_landing_listing_relation() -%}
    {%- set query -%}
        select listing.path, listing.length, listing.is_unlisted
        from {{ listing }} as listing
        left anti join (
            {{ cdc_lakehouse._cdc_loaded_files_sql(bronze_relation) }}
        ) as loaded
            on listing.path = loaded._source_file
            and listing.modificationtime = loaded._source_file_modified_at
        order by listing.path
    {%- endset -%}
    {%- set result = run_query(query) -%}
    {%- do cdc_lakehouse._cdc_note_unlisted_landing_files(result) -%}
    {{ return(result.columns[0].values() | list) }}
{% endmacro %}
