{% macro cdc_compressed_extensions() %}
    {#-
        The file name extensions of the landing files bronze decompresses, each read by
        Spark's text source through the Hadoop codec of that extension: gzip (`.gz`, what
        Kafka Connect's S3, GCS and HDFS sinks write with compression on), bzip2 (`.bz2`)
        and zlib (`.deflate`). Every other file is read as it is.
    -#}
    {{ return(['gz', 'bz2', 'deflate']) }}
{% endmacro %}

{% macro _cdc_is_compressed_path_sql(path_expression) %}
    {#- SQL: whether the file named by `path_expression` has a compressed extension. -#}
    {{ return("lower(" ~ path_expression ~ ") rlike '[.](" ~ cdc_compressed_extensions() | join('|') ~ ")$'") }}
{% endmacro %}

{% macro _cdc_is_compressed_path(path) %}
    {#- Jinja: whether `path` has a compressed extension. -#}
    {{ return(path.lower().rsplit('.', 1)[-1] in cdc_compressed_extensions() and '.' in path.rsplit('/', 1)[-1]) }}
{% endmacro %}
