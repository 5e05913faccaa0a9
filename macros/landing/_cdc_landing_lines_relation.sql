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
