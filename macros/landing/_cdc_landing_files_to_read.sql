{% macro _cdc_landing_files_to_read(new_files) %}
    {#-
        The landing files bronze reads in this run, sorted.
        They are `new_files`, or, when it is none (bronze's first run reads the whole landing
        folder), every file the landing listing holds (_cdc_landing_listing_relation; its
        zero-byte and unlisted files noted: _cdc_note_unlisted_landing_files). An empty list
        at parse time.
    -#}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- if new_files is not none -%}
        {{ return(new_files) }}
    {%- endif -%}
    {%- set query -%}
        select listing.path, listing.length, listing.is_unlisted
        from {{ cdc_lakehouse._cdc_landing_listing_relation() }} as listing
        order by listing.path
    {%- endset -%}
    {%- set result = run_query(query) -%}
    {%- do cdc_lakehouse._cdc_note_unlisted_landing_files(result) -%}
    {{ return(result.columns[0].values() | list) }}
{% endmacro %}
