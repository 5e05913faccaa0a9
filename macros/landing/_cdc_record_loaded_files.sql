{% macro _cdc_record_loaded_files() %}
    {#- Post-hook of bronze: brings its table of loaded files up to date. -#}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set bronze_properties = cdc_lakehouse._cdc_table_properties(this) -%}
    {%- set bronze_through = cdc_lakehouse._cdc_read_through(this) -%}
    {%- set target = cdc_lakehouse._cdc_loaded_files_relation(this) -%}
    {%- set existing = load_relation(target) -%}
    {%- set registry_through = none -%}
    {%- if existing is not none -%}
        {%- set registry_through = cdc_lakehouse._cdc_table_properties(existing).get('cdc.read_through') -%}
    {%- endif -%}
    {%- if bronze_through is none or (registry_through == bronze_through) -%}
        {{ return('') }}
    {%- endif -%}
    {%- set rebuild = registry_through is none
          or bronze_properties.get('cdc.previous_read_through', 'unknown') == 'unknown' -%}
    {%- set files_sql -%}
        select
            _source_file,
            _source_file_modified_at,
            max(_loaded_at) as _loaded_at
        from {{ this }}
        {%- if not rebuild %}
        where _loaded_at > timestamp'{{ registry_through }}'
        {%- endif %}
        group by _source_file, _source_file_modified_at
    {%- endset -%}
    {%- if rebuild -%}
        {%- if existing is not none -%}
            {%- do adapter.drop_relation(existing) -%}
        {%- endif -%}
        {%- call statement('_cdc_record_loaded_files') -%}
            create table {{ target }} using parquet as {{ files_sql }}
        {%- endcall -%}
        {%- do cdc_lakehouse._cdc_forget_relation(target) -%}
    {%- else -%}
        {%- call statement('_cdc_record_loaded_files') -%}
            insert into {{ target }} {{ files_sql }}
        {%- endcall -%}
    {%- endif -%}
    {%- call statement('cdc_record_loaded_files_through') -%}
        alter table {{ target }} set tblproperties ('cdc.read_through' = '{{ bronze_through }}')
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_remember_properties(target, {'cdc.read_through': bronze_through}) -%}
    {{ return('') }}
{% endmacro %}

{% macro _cdc_loaded_files_relation(bronze_relation) %}
    {#- The relation of bronze's table of loaded files. -#}
    {{ return(bronze_relation.incorporate(
        path={'identifier': bronze_relation.identifier ~ '__cdc_files'}, type='table')) }}
{% endmacro %}

{% macro _cdc_release_landing_views() %}
    {#- Post-hook of bronze: replaces the landing views by empty ones. -#}
    {%- set registered = cdc_lakehouse._cdc_invocation_cache('landing_views') -%}
    {%- for view_name in registered | list | sort -%}
        {%- do cdc_lakehouse._cdc_release_temp_view(view_name) -%}
    {%- endfor -%}
    {%- do registered.clear() -%}
{% endmacro %}
