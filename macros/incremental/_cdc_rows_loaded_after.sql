{% macro _cdc_rows_loaded_after(relation, since=none) %}
    {#-
        How many rows of `relation` were loaded after the timestamp text `since` (all: none).
        Its last write's count (`cdc.summary.rows`, _cdc_summarise_write) when that write
        added exactly those rows: it wrote the loads after `since`
        (`cdc.previous_read_through`), or it rebuilt the table and `since` is none. Else
        one count (_cdc_row_count), which the parquet reader answers from the new loads'
        files. 0 at parse time.
    -#}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- if cdc_lakehouse._cdc_read_through(relation) is not none -%}
        {%- set properties = cdc_lakehouse._cdc_table_properties(relation) -%}
        {%- set previous = properties.get('cdc.previous_read_through') -%}
        {%- if properties.get('cdc.summary.rows') is not none
              and previous == (since or 'unknown') -%}
            {{ return(properties.get('cdc.summary.rows') | int) }}
        {%- endif -%}
    {%- endif -%}
    {{ return(cdc_lakehouse._cdc_row_count(
        relation, "_loaded_at > timestamp'" ~ since ~ "'" if since else 'true')) }}
{% endmacro %}
