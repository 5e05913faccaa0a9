{% macro _cdc_record_latest_versions() %}
    {#- Post-hook of the fold model: brings its table of latest versions up to date. -#}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set model_through = cdc_lakehouse._cdc_read_through(this) -%}
    {%- if model_through is none -%}
        {{ return('') }}
    {%- endif -%}
    {%- set target = cdc_lakehouse._cdc_latest_versions_relation(this) -%}
    {%- set existing = load_relation(target) -%}
    {%- set properties = cdc_lakehouse._cdc_table_properties(existing) if existing is not none else {} -%}
    {%- set registry_through = properties.get('cdc.read_through') -%}
    {%- if registry_through == model_through -%}
        {{ return('') }}
    {%- endif -%}
    {%- set rebuild = registry_through is none
          or cdc_lakehouse._cdc_table_properties(this).get('cdc.previous_read_through', 'unknown') == 'unknown' -%}
    {%- set model_rows_through = cdc_lakehouse._cdc_rows_through(this) -%}
    {%- if not rebuild and model_rows_through is not none and model_rows_through <= registry_through -%}
        {#- no new row since the table's read-through: nothing to add, no probe -#}
        {{ return('') }}
    {%- endif -%}
    {%- set compacted_rows = properties.get('cdc.compacted_rows', 0) | int -%}
    {%- if rebuild -%}
        {%- if existing is not none -%}
            {%- do adapter.drop_relation(existing) -%}
        {%- endif -%}
        {%- do cdc_lakehouse._cdc_forget_relation(target) -%}
        {%- if not cdc_lakehouse._cdc_inputs_ever_held(model)
              or not cdc_lakehouse._cdc_has_rows(this, 'true') -%}
            {#- a model without a row needs no table: its lookup reads the model -#}
            {{ return('') }}
        {%- endif -%}
        {%- call statement('_cdc_record_latest_versions') -%}
            create table {{ target }} using parquet as
            {{ cdc_lakehouse._cdc_latest_versions_grouped(this) }}
        {%- endcall -%}
        {%- set compacted_rows = cdc_lakehouse._cdc_latest_versions_rows(target) -%}
    {%- elif cdc_lakehouse._cdc_has_rows(this, 'true', loaded_after="timestamp'" ~ registry_through ~ "'") -%}
        {%- call statement('_cdc_record_latest_versions') -%}
            insert into {{ target }}
            {{ cdc_lakehouse._cdc_latest_versions_grouped(this, registry_through) }}
        {%- endcall -%}
        {%- if cdc_lakehouse._cdc_latest_versions_rows(target)
              > compacted_rows * (1 + cdc_lakehouse.cdc_var('cdc_latest_versions_growth') | float) -%}
            {%- set compacted_rows = cdc_lakehouse._cdc_compact_latest_versions(target) -%}
        {%- endif -%}
    {%- endif -%}
    {%- call statement('cdc_record_latest_versions_through') -%}
        alter table {{ target }} set tblproperties (
            'cdc.read_through' = '{{ model_through }}',
            'cdc.compacted_rows' = '{{ compacted_rows }}'
        )
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_remember_properties(target, {
          'cdc.read_through': model_through, 'cdc.compacted_rows': compacted_rows | string}) -%}
    {{ return('') }}
{% endmacro %}

{% macro _cdc_compact_latest_versions(registry) %}
    {#- Keeps one row per key in a table of latest versions. -#}
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
