{% macro _cdc_landing_files_subset_relation(paths) %}
    {#- Registers a temporary view over the landing files `paths` and returns its name. -#}
    {%- if not execute or paths is none or paths | length == 0
          or paths | length > cdc_lakehouse.cdc_var('cdc_landing_glob_max_files') | int -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set view_name = '_cdc_new_landing_files' -%}
    {%- call statement('cdc_register_new_files_view', fetch_result=False) -%}
        create or replace temporary view {{ view_name }}
        using binaryFile
        options (
            path '{{ cdc_lakehouse._cdc_escape_string(cdc_lakehouse._cdc_paths_glob(paths)) }}'
        )
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_invocation_cache('landing_views').update({view_name: true}) -%}
    {{ return(view_name) }}
{% endmacro %}

{% macro _cdc_glob_escape(text) %}
    {#- text with the characters that Hadoop globs treat specially escaped by a backslash. -#}
    {%- set escaped = namespace(text=text.replace('\\', '\\\\')) -%}
    {%- for character in ['{', '}', '[', ']', '*', '?', ','] -%}
        {%- set escaped.text = escaped.text.replace(character, '\\' ~ character) -%}
    {%- endfor -%}
    {{ return(escaped.text) }}
{% endmacro %}
