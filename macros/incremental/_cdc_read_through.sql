{% macro _cdc_read_through(relation) %}
    {#-
        The `_loaded_at` through which `relation` holds everything its inputs had.
        It is read from its table properties (_cdc_record_read_through), or none when that is
        not known for sure: no property yet, or a write that started (`cdc.reading_through`) and
        did not record its end, such as a run killed between its insert and its bookkeeping.
    -#}
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
