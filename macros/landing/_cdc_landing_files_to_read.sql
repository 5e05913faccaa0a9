{% macro _cdc_landing_files_to_read(new_files) %}
    {#- The landing files bronze reads in this run, sorted. -#}
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
