{% macro cdc_loaded_watermark(relation) %}
    {#-
        The `_loaded_at` an incremental model has read up to, as a timestamp literal for its
        `_loaded_at > ...` filter: the newest `_loaded_at` it holds, or the table property
        `cdc.read_through` (cdc_record_read_through) when that is newer, so that a model
        whose filter keeps few rows, or none, does not read its whole upstream again on each
        run; 1970-01-01 for an empty table without the property. A literal, unlike a scalar
        subquery, is pushed down to the parquet reader, whose row-group statistics then skip
        the files of older loads (the profiles write parquet timestamps as
        TIMESTAMP_MICROS).
    -#}
    {%- set epoch = "timestamp'1970-01-01 00:00:00'" -%}
    {%- if not execute -%}
        {{ return(epoch) }}
    {%- endif -%}
    {%- set read_through = _cdc_table_property(relation, 'cdc.read_through') -%}
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
