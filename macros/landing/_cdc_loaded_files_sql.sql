{% macro _cdc_loaded_files_sql(bronze_relation) %}
    {#-
        SQL selecting every file version bronze holds.
        SQL selecting `_source_file` and `_source_file_modified_at` of every file version
        bronze holds. From the table of loaded files (_cdc_loaded_files_relation), complete
        through its `cdc.read_through`, and bronze's lines loaded after that (a literal
        that parquet statistics use to skip older loads): both are read, so a run killed
        before the table was brought up to date loses nothing. Without that table (or its
        property), bronze's own lines, all of them.
    -#}
    {%- set registry = load_relation(cdc_lakehouse._cdc_loaded_files_relation(bronze_relation)) -%}
    {%- set read_through = none -%}
    {%- if registry is not none -%}
        {%- set read_through = cdc_lakehouse._cdc_table_properties(registry).get('cdc.read_through') -%}
    {%- endif -%}
    {%- if read_through -%}
        select _source_file, _source_file_modified_at
        from {{ registry }}
        union all
        select distinct _source_file, _source_file_modified_at
        from {{ bronze_relation }}
        where _loaded_at > timestamp'{{ read_through }}'
    {%- else -%}
        select distinct _source_file, _source_file_modified_at
        from {{ bronze_relation }}
    {%- endif -%}
{% endmacro %}
