{% macro _cdc_unloaded_landing_files(bronze_relation) %}
    {#- The landing files bronze does not hold yet in their current version. -#}
    {%- if not execute or bronze_relation is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set listing = cdc_lakehouse._cdc_landing_listing_relation() -%}
    {%- set query -%}
        select listing.path, listing.length, listing.is_unlisted
        from {{ listing }} as listing
        left anti join (
            {{ cdc_lakehouse._cdc_loaded_files_sql(bronze_relation) }}
        ) as loaded
            on listing.path = loaded._source_file
            and listing.modificationtime = loaded._source_file_modified_at
        order by listing.path
    {%- endset -%}
    {{ return(cdc_lakehouse._cdc_listed_paths(query)) }}
{% endmacro %}

{% macro _cdc_loaded_files_sql(bronze_relation) %}
    {#- SQL selecting every file version bronze holds. -#}
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
