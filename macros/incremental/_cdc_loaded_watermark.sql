{% macro _cdc_loaded_watermark(relation) %}
    {#- The `_loaded_at` an incremental model has read up to, as a timestamp literal. -#}
    {%- set epoch = "timestamp'1970-01-01 00:00:00'" -%}
    {%- if not execute -%}
        {{ return(epoch) }}
    {%- endif -%}
    {%- set known = cdc_lakehouse._cdc_read_through(relation) -%}
    {%- if known -%}
        {{ return("timestamp'" ~ known ~ "'") }}
    {%- endif -%}
    {%- set read_through = cdc_lakehouse._cdc_table_properties(relation).get('cdc.read_through') -%}
    {%- if read_through == 'unknown' -%}
        {%- set read_through = none -%}
    {%- endif -%}
    {%- set newest = run_query(
        "select cast(greatest(max(_loaded_at), "
        ~ ("timestamp'" ~ read_through ~ "'" if read_through else "cast(null as timestamp)")
        ~ ") as string) from " ~ relation
    ).columns[0].values()[0] -%}
    {%- if newest is none -%}
        {{ return(epoch) }}
    {%- endif -%}
    {{ return("timestamp'" ~ newest ~ "'") }}
{% endmacro %}
