{% macro cdc_compressed_landing_files(new_files) %}
    {#-
        The compressed files (cdc_compressed_extensions) bronze reads in this run, sorted:
        those among `new_files`, or, when `new_files` is none (bronze reads the whole
        landing folder), every compressed file the landing listing holds. An empty list at
        parse time.
    -#}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- if new_files is not none -%}
        {{ return(_cdc_compressed_among(new_files)) }}
    {%- endif -%}
    {%- set query -%}
        select listing.path
        from {{ cdc_landing_files_relation() }} as listing
        where {{ _cdc_is_compressed_path_sql('listing.path') }}
        order by listing.path
    {%- endset -%}
    {{ return(run_query(query).columns[0].values() | list) }}
{% endmacro %}

{% macro _cdc_compressed_among(paths) %}
    {#- The paths among `paths` with a compressed extension, in their order. -#}
    {%- set compressed = [] -%}
    {%- for path in paths if _cdc_is_compressed_path(path) -%}
        {%- do compressed.append(path) -%}
    {%- endfor -%}
    {{ return(compressed) }}
{% endmacro %}
