{% macro _cdc_landing_files_relation() %}
    {#- Registers a temporary view listing every landing file and returns its name. -#}
    {%- set view_name = '_cdc_landing_files' -%}
    {%- set landing_dir = cdc_lakehouse._cdc_landing_dir() -%}
    {%- set registered = cdc_lakehouse._cdc_invocation_cache('landing_views') -%}
    {%- if execute and view_name not in registered -%}
        {%- do registered.update({view_name: true}) -%}
        {%- call statement('cdc_register_landing_view', fetch_result=False) -%}
            create or replace temporary view {{ view_name }}
            using binaryFile
            options (
                path '{{ cdc_lakehouse._cdc_escape_string(landing_dir) }}',
                recursiveFileLookup 'true',
                pathGlobFilter '{{ cdc_lakehouse._cdc_escape_string(cdc_lakehouse.cdc_var("cdc_landing_glob")) }}'
            )
        {%- endcall -%}
    {%- endif -%}
    {{ return(view_name) }}
{% endmacro %}
