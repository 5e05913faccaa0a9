{% macro _cdc_compact_latest_versions(registry) %}
    {#-
        Keeps one row per key in a table of latest versions.
        For _cdc_record_latest_versions: the grouped rows overwrite a staging table
        (_cdc_latest_versions_staging, kept between compactions: dropping it cost as much as
        writing it), which then overwrites the table (Spark does not overwrite a table it reads
        in the same statement). A run killed in between leaves the table as it was, or
        rewritten: either answers the same. Returns the number of rows kept.
    -#}
    {%- set staging = cdc_lakehouse._cdc_latest_versions_staging(registry) -%}
    {%- set compacted_sql -%}
        select
            _cdc_source_id,
            _cdc_key,
            max_by(latest_version, latest_sort_key) as latest_version,
            max(latest_sort_key) as latest_sort_key,
            max(latest_message_sort_key) as latest_message_sort_key
        from {{ registry }}
        group by _cdc_source_id, _cdc_key
    {%- endset -%}
    {%- call statement('cdc_compact_latest_versions') -%}
        {%- if load_relation(staging) is none %}
        create table {{ staging }} using parquet as {{ compacted_sql }}
        {%- else %}
        insert overwrite table {{ staging }} {{ compacted_sql }}
        {%- endif %}
    {%- endcall -%}
    {%- call statement('cdc_compact_latest_versions') -%}
        insert overwrite table {{ registry }}
        select * from {{ staging }}
    {%- endcall -%}
    {{ return(cdc_lakehouse._cdc_latest_versions_rows(registry)) }}
{% endmacro %}
