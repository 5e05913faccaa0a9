{% macro _cdc_loaded_watermark(relation) %}
    {#-
        The `_loaded_at` an incremental model has read up to, as a timestamp literal.
        It goes into the model's `_loaded_at > ...` filter. Normally its table property
        `cdc.read_through` (_cdc_read_through: no Spark job); after a write that did not record
        its end, the newest `_loaded_at` it holds (or the last recorded read-through, when
        newer), which is exact because a model's filter keeps the same rows on every run;
        1970-01-01 for an empty table without either. A literal, unlike a scalar subquery, is
        pushed down to the parquet reader, whose row-group statistics then skip the files of
        older loads (the profiles write parquet timestamps as TIMESTAMP_MICROS).
    -#}
    {%- set epoch = "timestamp'1970-01-01 00:00:00'" -%}
    {%- if not execute -%}
        {{ return(epoch) }}
    {%- endif -%}
    {%- set known = cdc_lakehouse._cdc_read_through(relation) -%}
    {%- if known -%}
        {{ return("timestamp'" ~ known ~ "'") }}
    {%- endif -%}
    {#- a write that did not record its end: the data tells, or the last recorded
        read-through when that is newer -#}
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
