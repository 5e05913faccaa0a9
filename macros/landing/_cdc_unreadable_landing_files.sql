{% macro _cdc_unreadable_landing_files(paths) %}
    {#- The landing files among `paths` that cannot be read whole, with the lines read first. -#}
    {%- if not execute or not paths -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set unreadable = [] -%}
    {%- set empty = cdc_lakehouse._cdc_empty_landing_files(paths) -%}
    {%- for path in empty -%}
        {%- do unreadable.append({'path': path, 'lines_read': 0, 'reason': 'empty_file', 'error': none}) -%}
    {%- endfor -%}
    {%- set unlisted = cdc_lakehouse._cdc_unlisted_landing_files(paths) -%}
    {%- if unlisted -%}
        {%- set contents = cdc_lakehouse._cdc_unlisted_landing_contents_relation(unlisted) -%}
        {%- set failed_query -%}
            select path, error from {{ contents }} where error is not null order by path
        {%- endset -%}
        {%- for row in run_query(failed_query).rows -%}
            {%- do unreadable.append({
                'path': row[0], 'lines_read': 0, 'reason': 'unreadable_file', 'error': row[1]
            }) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set whole = cdc_lakehouse._cdc_whole_read_among(paths) -%}
    {%- set compressed = [] -%}
    {%- for path in paths | reject('in', empty) | reject('in', unlisted) -%}
        {%- set name = path.rsplit('/', 1)[-1] -%}
        {%- if path not in whole and '.' in name
              and name.rsplit('.', 1)[-1].lower() in cdc_lakehouse._cdc_compressed_extensions() -%}
            {%- do compressed.append(path) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not compressed -%}
        {{ return(unreadable) }}
    {%- endif -%}
    {%- set probe = cdc_lakehouse._cdc_landing_probe_relation(compressed, '_cdc_probed_landing_files', true) -%}
    {%- set query -%}
        select distinct {{ cdc_lakehouse._cdc_input_file_path() }} as source_file
        from {{ probe }}
    {%- endset -%}
    {%- set readable = run_query(query).columns[0].values() | list -%}
    {%- set failed = compressed | reject('in', readable) | list -%}
    {%- if not failed -%}
        {{ return(unreadable) }}
    {%- endif -%}
    {%- set partial = cdc_lakehouse._cdc_landing_probe_relation(failed, '_cdc_unreadable_landing_lines', false) -%}
    {%- set count_query -%}
        select {{ cdc_lakehouse._cdc_input_file_path() }} as source_file, count(*) as lines_read
        from {{ partial }}
        group by 1
    {%- endset -%}
    {%- set counted = {} -%}
    {%- for row in run_query(count_query).rows -%}
        {%- do counted.update({row[0]: row[1] | int}) -%}
    {%- endfor -%}
    {%- for path in failed -%}
        {%- do unreadable.append({
            'path': path, 'lines_read': counted.get(path, 0), 'reason': 'unreadable_file',
            'error': none
        }) -%}
    {%- endfor -%}
    {{ return(unreadable) }}
{% endmacro %}

{% macro _cdc_landing_probe_relation(paths, view_name, whole_text) %}
    {#- Registers a temporary view `view_name` reading `paths` past their codec errors. -#}
    {%- call statement('cdc_register_' ~ view_name, fetch_result=False) -%}
        create or replace temporary view {{ view_name }}
        using text
        options (
            path '{{ cdc_lakehouse._cdc_escape_string(cdc_lakehouse._cdc_paths_glob(paths)) }}',
            lineSep '\n',
            {%- if whole_text %}
            wholetext 'true',
            {%- endif %}
            ignoreCorruptFiles 'true',
            ignoreMissingFiles 'true',
            `io.compression.codecs` 'io.airlift.compress.zstd.ZstdCodec'
        )
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_invocation_cache('landing_views').update({view_name: true}) -%}
    {{ return(view_name) }}
{% endmacro %}

{% macro _cdc_input_file_path() %}
    {#- SQL: the file a text source row was read from, named as the `binaryFile` listing names it. -#}
    regexp_replace(url_decode(replace(input_file_name(), '+', '%2B')), '^file:///', 'file:/')
{%- endmacro %}
