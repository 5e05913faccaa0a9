{% macro cdc_record_read_through(upstream) %}
    {#-
        Post-hook of an incremental model that reads `upstream` by `_loaded_at`: records
        the newest `_loaded_at` of upstream, which the run has just read up to, as the table
        property `cdc.read_through` of the model (read back by cdc_loaded_watermark).
        Renders nothing at parse time or when upstream is empty.
    -#}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set newest = run_query(
        "select cast(max(_loaded_at) as string) from " ~ upstream
    ).columns[0].values()[0] -%}
    {%- if newest is none -%}
        {{ return('') }}
    {%- endif -%}
    {{ return("alter table " ~ this ~ " set tblproperties ('cdc.read_through' = '" ~ newest ~ "')") }}
{% endmacro %}
