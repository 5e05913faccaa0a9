{% macro _cdc_landing_lines_relation(paths) %}
    {#- Registers a temporary view of the lines of the landing files `paths`. -#}
    {%- if not execute or paths is none or paths | length == 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set view_name = '_cdc_new_landing_lines' -%}
    {%- call statement('cdc_register_new_lines_view', fetch_result=False) -%}
        create or replace temporary view {{ view_name }}
        using text
        options (
            path '{{ cdc_lakehouse._cdc_escape_string(cdc_lakehouse._cdc_paths_glob(paths)) }}',
            lineSep '\n',
            `io.compression.codecs` 'io.airlift.compress.zstd.ZstdCodec'
        )
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_invocation_cache('landing_views').update({view_name: true}) -%}
    {{ return(view_name) }}
{% endmacro %}

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
    {{ return(cdc_lakehouse._cdc_listed_paths(query)) }}
{% endmacro %}

{% macro _cdc_without_trailing_cr(line_expression) %}
    {#- SQL: the line without its one trailing carriage return. -#}
    case
        when endswith({{ line_expression }}, '\r')
            then substr({{ line_expression }}, 1, length({{ line_expression }}) - 1)
        else {{ line_expression }}
    end
{%- endmacro %}

{% macro _cdc_sink_file_coordinates(path_expression) %}
    {#- The topic, partition and start offset in a Kafka Connect sink file's name. -#}
    {%- set pattern = "'([^/+]+)[+]([0-9]+)[+]([0-9]+)[.][^/]*$'" -%}
    nullif(regexp_extract({{ path_expression }}, {{ pattern }}, 1), '') as file_topic,
    try_cast(nullif(regexp_extract({{ path_expression }}, {{ pattern }}, 2), '') as int)
        as file_partition,
    try_cast(nullif(regexp_extract({{ path_expression }}, {{ pattern }}, 3), '') as bigint)
        as file_start_offset
{%- endmacro %}
