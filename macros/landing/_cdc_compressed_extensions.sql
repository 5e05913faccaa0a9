{% macro _cdc_compressed_extensions() %}
    {#- The file name extensions of the landing files bronze decompresses. -#}
    {{ return(['gz', 'bz2', 'deflate', 'zst']) }}
{% endmacro %}

{% macro _cdc_whole_read_extensions() %}
    {#- The file name extensions of the landing files bronze reads whole. -#}
    {{ return(['lz4', 'snappy']) }}
{% endmacro %}

{% macro _cdc_whole_read_among(paths) %}
    {#- The paths among `paths` with an extension of _cdc_whole_read_extensions, in order. -#}
    {{ return(cdc_lakehouse._cdc_paths_with_extensions(paths, cdc_lakehouse._cdc_whole_read_extensions())) }}
{% endmacro %}

{% macro _cdc_paths_with_extensions(paths, extensions) %}
    {#- The paths among `paths` whose file name's last extension (any case) is in `extensions`, in order. -#}
    {%- set found = [] -%}
    {%- for path in paths -%}
        {%- set name = path.rsplit('/', 1)[-1] -%}
        {%- if '.' in name and name.rsplit('.', 1)[-1].lower() in extensions -%}
            {%- do found.append(path) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(found) }}
{% endmacro %}
