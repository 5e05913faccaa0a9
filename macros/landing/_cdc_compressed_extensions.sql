{% macro _cdc_compressed_extensions() %}
    {#-
        The file name extensions of the landing files bronze decompresses.
        Each is read by Spark's text source through the Hadoop codec of that extension: gzip
        (`.gz`, what Kafka Connect's S3, GCS and HDFS sinks write with compression on), bzip2
        (`.bz2`), zlib (`.deflate`) and zstd (`.zst`, through aircompressor's pure-Java codec,
        which Spark ships: _cdc_landing_lines_relation). Every other file is read as it is.
    -#}
    {{ return(['gz', 'bz2', 'deflate', 'zst']) }}
{% endmacro %}

{% macro _cdc_whole_read_extensions() %}
    {#-
        The file name extensions of the landing files bronze reads whole.
        They are read by `binaryFile`, instead of line by line through the text source: the
        compressions Hadoop's codecs would claim by their extension but cannot read as other
        tools write them (`.lz4` and `.snappy`: Hadoop's own block formats, not the framed files
        of the lz4 and snappy tools; a file the codec cannot read would fail the whole query).
        Their lines are not UTF-8: quarantined as `invalid_utf8`, bytes kept.
    -#}
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
