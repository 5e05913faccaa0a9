{% macro _cdc_latest_versions_sql(relation) %}
    {#- SQL: the latest version of each key of the fold model. -#}
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
