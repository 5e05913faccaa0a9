{% macro _cdc_listed_paths(query) %}
    {#- Runs a landing listing's query, notes its zero-byte and unlisted files, returns its paths. -#}
    {%- set listing = run_query(query) -%}
    {%- set empty = cdc_lakehouse._cdc_invocation_cache('empty_landing_files') -%}
    {%- set unlisted = cdc_lakehouse._cdc_invocation_cache('unlisted_landing_files') -%}
    {%- for row in listing.rows -%}
        {%- if row[1] is not none and row[1] | int == 0 -%}
            {%- do empty.update({row[0]: true}) -%}
        {%- elif row[2] -%}
            {%- do unlisted.update({row[0]: true}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(listing.columns[0].values() | list) }}
{% endmacro %}

{% macro _cdc_empty_landing_files(paths) %}
    {#- The zero-byte files among the landing files `paths`, in order. -#}
    {%- set empty = cdc_lakehouse._cdc_invocation_cache('empty_landing_files') -%}
    {{ return(paths | select('in', empty) | list) }}
{% endmacro %}

{% macro _cdc_unlisted_landing_files(paths) %}
    {#- The files among the landing files `paths` that Spark's file sources cannot read. -#}
    {%- set unlisted = cdc_lakehouse._cdc_invocation_cache('unlisted_landing_files') -%}
    {{ return(paths | select('in', unlisted) | list) }}
{% endmacro %}

{% macro _cdc_unlisted_landing_contents_relation(paths) %}
    {#- Registers a temporary view of the unlisted landing files `paths` with their bytes. -#}
    {%- if not execute or not paths -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set view_name = '_cdc_unlisted_landing_contents' -%}
    {%- call statement('cdc_register_unlisted_contents_view', fetch_result=False) -%}
        create or replace temporary view {{ view_name }} as
        select
            listing.path,
            listing.modificationtime,
            listing.length,
            file_content.content,
            file_content.error
        from (
            select
                path,
                modificationtime,
                length,
                cdc_landing_file_content(path) as file_content
            from {{ cdc_lakehouse._cdc_landing_listing_relation() }}
            where {{ cdc_lakehouse._cdc_in_list('path', paths) }}
        ) as listing
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_invocation_cache('landing_views').update({view_name: true}) -%}
    {{ return(view_name) }}
{% endmacro %}
