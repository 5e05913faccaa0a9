{% macro _cdc_landing_listing_relation() %}
    {#- Registers a cached temporary view of every landing file (no content) and returns its name. -#}
    {%- set registered = cdc_lakehouse._cdc_invocation_cache('landing_views') -%}
    {%- set listings = cdc_lakehouse._cdc_invocation_cache('landing_listings') -%}
    {%- set view_name = listings.get('current', '_cdc_landing_listing') -%}
    {%- if execute and view_name not in registered -%}
        {#- `cache table ... as` fails on an existing view: a name per invocation and listing -#}
        {%- do listings.update({'count': listings.get('count', 0) + 1}) -%}
        {%- set view_name = '_cdc_landing_listing_' ~ invocation_id.replace('-', '')[:12] ~ '_' ~ listings['count'] -%}
        {%- do listings.update({'current': view_name}) -%}
        {%- set files = cdc_lakehouse._cdc_landing_files_relation() -%}
        {%- set ignored = cdc_lakehouse.cdc_var('cdc_landing_ignored_names') -%}
        {%- set unlisted = cdc_lakehouse.cdc_var('cdc_landing_unlisted_files')
              and cdc_lakehouse._cdc_function_exists('cdc_landing_unlisted_files') -%}
        {%- set tasks = [cdc_lakehouse._cdc_spark_conf('spark.sql.shuffle.partitions') | int, 1] | max -%}
        {%- do registered.update({view_name: true}) -%}
        {%- call statement('cdc_register_landing_listing', fetch_result=False) -%}
            cache table {{ view_name }} as
            select
                path,
                modificationtime,
                length,
                is_unlisted
            from (
                {#- binaryFile plans tasks by the bytes of files it lists without reading them -#}
                select /*+ coalesce({{ tasks }}) */
                    listed.path,
                    listed.modificationtime,
                    listed.length,
                    false as is_unlisted
                from {{ files }} as listed
                {%- if unlisted %}
                union all
                select
                    hidden.path,
                    hidden.modificationtime,
                    hidden.length,
                    true as is_unlisted
                from (
                    select inline(cdc_landing_unlisted_files(
                        '{{ cdc_lakehouse._cdc_escape_string(cdc_lakehouse._cdc_landing_dir()) }}',
                        '{{ cdc_lakehouse._cdc_escape_string(cdc_lakehouse.cdc_var("cdc_landing_glob")) }}',
                        array({% for name in ignored %}'{{ cdc_lakehouse._cdc_escape_string(name) }}'{{ ', ' if not loop.last }}{% endfor %})
                    ))
                ) as hidden
                {%- endif %}
            ) as landing_files
            {%- if ignored %}
            where not path rlike '{{ cdc_lakehouse._cdc_escape_string(cdc_lakehouse._cdc_path_part_regex(ignored)) }}'
            {%- endif %}
        {%- endcall -%}
    {%- endif -%}
    {{ return(view_name) }}
{% endmacro %}

{% macro _cdc_path_part_regex(globs) %}
    {#- A regular expression matching a path with a part that one of the globs matches. -#}
    {%- set alternatives = [] -%}
    {%- for glob in globs -%}
        {%- set pattern = namespace(text='') -%}
        {%- for character in glob -%}
            {%- if character == '*' -%}
                {%- set pattern.text = pattern.text ~ '[^/]*' -%}
            {%- elif character == '?' -%}
                {%- set pattern.text = pattern.text ~ '[^/]' -%}
            {%- elif character in '\\.[]{}()+^$|' -%}
                {%- set pattern.text = pattern.text ~ '\\' ~ character -%}
            {%- else -%}
                {%- set pattern.text = pattern.text ~ character -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do alternatives.append(pattern.text) -%}
    {%- endfor -%}
    {{ return('(^|/)(' ~ alternatives | join('|') ~ ')(/|$)') }}
{% endmacro %}
