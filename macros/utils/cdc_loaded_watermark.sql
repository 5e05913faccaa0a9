{% macro cdc_loaded_watermark(relation, when_empty=none) %}
    {#-
        The newest _loaded_at of relation as a timestamp literal, for an incremental
        model's `_loaded_at > ...` filter. A literal, unlike a scalar subquery, is pushed
        down to the parquet reader, whose row-group statistics then skip the files of older
        loads (the profiles write parquet timestamps as TIMESTAMP_MICROS, which carry
        statistics). when_empty: the SQL expression used when relation has no rows
        (default: a null timestamp, which selects nothing).
    -#}
    {%- set empty = when_empty if when_empty is not none else "cast(null as timestamp)" -%}
    {%- if not execute -%}
        {{ return(empty) }}
    {%- endif -%}
    {%- set newest = run_query(
        "select cast(max(_loaded_at) as string) from " ~ relation
    ).columns[0].values()[0] -%}
    {%- if newest is none -%}
        {{ return(empty) }}
    {%- endif -%}
    {{ return("timestamp'" ~ newest ~ "'") }}
{% endmacro %}
