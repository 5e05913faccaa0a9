{% macro _cdc_read_through(relation) %}
    {#- The `_loaded_at` through which `relation` holds everything its inputs had. -#}
    {%- if not execute or relation is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set properties = cdc_lakehouse._cdc_table_properties(relation) -%}
    {%- set read_through = properties.get('cdc.read_through') -%}
    {%- if read_through and properties.get('cdc.reading_through') == read_through
          and read_through != 'unknown' -%}
        {{ return(read_through) }}
    {%- endif -%}
    {{ return(none) }}
{% endmacro %}
