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

{% macro _cdc_latest_versions_relation(relation) %}
    {#- The relation of a fold model's table of latest versions. -#}
    {{ return(relation.incorporate(
        path={'identifier': relation.identifier ~ '__cdc_latest'}, type='table')) }}
{% endmacro %}

{% macro _cdc_latest_versions_staging(registry) %}
    {#- The staging table of a table of latest versions. -#}
    {{ return(registry.incorporate(
        path={'identifier': registry.identifier ~ '__compacting'}, type='table')) }}
{% endmacro %}

{% macro _cdc_latest_versions_grouped(relation, loaded_after=none) %}
    {#- SQL: one row per key of the fold model, as its table of latest versions holds it. -#}
    select
        _cdc_source_id,
        _cdc_key,
        max_by(
            named_struct('document', _cdc_after, 'is_partial', _cdc_is_partial), _cdc_sort_key
        ) as latest_version,
        max(_cdc_sort_key) as latest_sort_key,
        max(_cdc_message_sort_key) as latest_message_sort_key
    from {{ relation }}
    {%- if loaded_after %}
    where _loaded_at > timestamp'{{ loaded_after }}'
    {%- endif %}
    group by _cdc_source_id, _cdc_key
{% endmacro %}

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

{% macro _cdc_latest_versions_rows(registry) %}
    {#- The number of rows of a table of latest versions (parquet footers: no scan). -#}
    {{ return(run_query('select count(*) from ' ~ registry).columns[0].values()[0] | int) }}
{% endmacro %}

{% macro _cdc_drop_latest_versions() %}
    {#- Pre-hook of the fold model: drops its table of latest versions before a full build. -#}
    {%- if execute and not cdc_lakehouse.cdc_is_incremental() -%}
        {%- set registry = cdc_lakehouse._cdc_latest_versions_relation(this) -%}
        {%- for relation in [registry, cdc_lakehouse._cdc_latest_versions_staging(registry)] -%}
            {%- set existing = load_relation(relation) -%}
            {%- if existing is not none -%}
                {%- do adapter.drop_relation(existing) -%}
                {%- do cdc_lakehouse._cdc_forget_relation(existing) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
