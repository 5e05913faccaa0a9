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

{% macro _cdc_function_exists(name) %}
    {#- Whether the SQL function `name` is registered in the session. -#}
    {%- if not execute -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set found = run_query("show functions like '" ~ cdc_lakehouse._cdc_escape_string(name) ~ "'") -%}
    {{ return(found.rows | length > 0) }}
{% endmacro %}

{% macro _cdc_spark_conf(key) %}
    {#- A Spark SQL setting of the session, read once per invocation (none when unset). -#}
    {%- set settings = cdc_lakehouse._cdc_invocation_cache('spark_conf') -%}
    {%- if execute and key not in settings -%}
        {%- set rows = run_query('set ' ~ key).rows -%}
        {%- do settings.update({key: rows[0][1] if rows and rows[0][1] != '<undefined>' else none}) -%}
    {%- endif -%}
    {{ return(settings.get(key)) }}
{% endmacro %}

{% macro _cdc_landing_dir() %}
    {#- The landing folder: var `cdc_landing_dir` (env CDC_LANDING_DIR), trimmed. -#}
    {%- set landing_dir = cdc_lakehouse.cdc_var('cdc_landing_dir') | trim -%}
    {%- if landing_dir == '' -%}
        {{ exceptions.raise_compiler_error(
            "cdc_landing_dir is empty: set the dbt var cdc_landing_dir or the environment "
            ~ "variable CDC_LANDING_DIR to the folder that holds the landing files."
        ) }}
    {%- endif -%}
    {{ return(landing_dir) }}
{% endmacro %}

{% macro _cdc_landing_files_relation() %}
    {#- Registers a temporary view listing every landing file and returns its name. -#}
    {%- set view_name = '_cdc_landing_files' -%}
    {%- set landing_dir = cdc_lakehouse._cdc_landing_dir() -%}
    {%- set registered = cdc_lakehouse._cdc_invocation_cache('landing_views') -%}
    {%- if execute and view_name not in registered -%}
        {%- do registered.update({view_name: true}) -%}
        {%- call statement('cdc_register_landing_view', fetch_result=False) -%}
            create or replace temporary view {{ view_name }}
            using binaryFile
            options (
                path '{{ cdc_lakehouse._cdc_escape_string(landing_dir) }}',
                recursiveFileLookup 'true',
                pathGlobFilter '{{ cdc_lakehouse._cdc_escape_string(cdc_lakehouse.cdc_var("cdc_landing_glob")) }}'
            )
        {%- endcall -%}
    {%- endif -%}
    {{ return(view_name) }}
{% endmacro %}

{% macro _cdc_landing_files_subset_relation(paths) %}
    {#- Registers a temporary view over the landing files `paths` and returns its name. -#}
    {%- if not execute or paths is none or paths | length == 0
          or paths | length > cdc_lakehouse.cdc_var('cdc_landing_glob_max_files') | int -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set view_name = '_cdc_new_landing_files' -%}
    {%- call statement('cdc_register_new_files_view', fetch_result=False) -%}
        create or replace temporary view {{ view_name }}
        using binaryFile
        options (
            path '{{ cdc_lakehouse._cdc_escape_string(cdc_lakehouse._cdc_paths_glob(paths)) }}'
        )
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_invocation_cache('landing_views').update({view_name: true}) -%}
    {{ return(view_name) }}
{% endmacro %}

{% macro _cdc_glob_escape(text) %}
    {#- text with the characters that Hadoop globs treat specially escaped by a backslash. -#}
    {%- set escaped = namespace(text=text.replace('\\', '\\\\')) -%}
    {%- for character in ['{', '}', '[', ']', '*', '?', ','] -%}
        {%- set escaped.text = escaped.text.replace(character, '\\' ~ character) -%}
    {%- endfor -%}
    {{ return(escaped.text) }}
{% endmacro %}

{% macro _cdc_paths_glob(paths) %}
    {#- One Hadoop glob that matches exactly the files `paths`. -#}
    {%- set folder = namespace(prefix=paths[0].rsplit('/', 1)[0]) -%}
    {%- for path in paths -%}
        {%- for _ in range(path.count('/') + 1) -%}
            {%- if not path.startswith(folder.prefix ~ '/') -%}
                {%- set folder.prefix = folder.prefix.rsplit('/', 1)[0] -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- set names = [] -%}
    {%- for path in paths -%}
        {%- do names.append(cdc_lakehouse._cdc_glob_escape(path[folder.prefix | length + 1:])) -%}
    {%- endfor -%}
    {{ return(cdc_lakehouse._cdc_glob_escape(folder.prefix) ~ "/{" ~ names | join(",") ~ "}") }}
{% endmacro %}
