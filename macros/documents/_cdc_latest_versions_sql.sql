{% macro _cdc_latest_versions_sql(relation) %}
    {#-
        SQL: the latest version of each key of the fold model.
        SQL: the latest versions of the fold model `relation` (int_cdc__document_changes),
        rows of `_cdc_source_id`, `_cdc_key`, `latest_version`, `latest_sort_key`,
        `latest_message_sort_key`, possibly several per key (group them with max_by and
        max). From its table of latest versions, complete through that table's
        `cdc.read_through`, and, when that is not the model's own read-through (a run
        killed before its post-hook), the model's rows loaded after it (parquet statistics
        skip the older loads): a run's lookup reads a row per key, not the model's whole
        history. Without that table (or its property), from all of the model's rows.
    -#}
    {%- set registry = load_relation(cdc_lakehouse._cdc_latest_versions_relation(relation)) -%}
    {%- set read_through = none -%}
    {%- if registry is not none -%}
        {%- set read_through = cdc_lakehouse._cdc_table_properties(registry).get('cdc.read_through') -%}
    {%- endif -%}
    {%- if read_through -%}
        select
            _cdc_source_id,
            _cdc_key,
            latest_version,
            latest_sort_key,
            latest_message_sort_key
        from {{ registry }}
        {%- if read_through != cdc_lakehouse._cdc_read_through(relation) %}
        {#- not complete through the model's own read-through: its later rows too #}
        union all
        {{ cdc_lakehouse._cdc_latest_versions_grouped(relation, read_through) }}
        {%- endif %}
    {%- else -%}
        {{ cdc_lakehouse._cdc_latest_versions_grouped(relation) }}
    {%- endif -%}
{% endmacro %}
