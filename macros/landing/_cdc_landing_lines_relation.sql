{% macro _cdc_landing_lines_relation(paths) %}
    {#-
        Registers a temporary view of the lines of the landing files `paths`.
        Registers a temporary view `_cdc_new_landing_lines` over exactly the landing files
        `paths` through Spark's text source, one row (`value`) per line, and returns its name.
        The source decompresses a file by its extension (Hadoop's codecs; for `.zst`,
        aircompressor's pure-Java codec, which Spark ships, instead of Hadoop's, which needs
        a native library pyspark does not have: the option adds it to the reader's Hadoop
        configuration, where it overrides Hadoop's for that extension), streams its
        lines instead of holding the file (bronze reads every landing file so, but those of
        _cdc_whole_read_extensions), splits on '\n' only (a '\r' before it stays on the
        line) and keeps each line's bytes as they are, valid UTF-8 or not. Returns none for
        an empty list or at parse time.
    -#}
    {%- if not execute or paths is none or paths | length == 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set view_name = '_cdc_new_landing_lines' -%}
    {%- call statement('cdc_register_new_lines_view', fetch_result=False) -%}
        create or replace temporary view {{ view_name }}
        using text
        options (
            path '{{ cdc_lakehouse._cdc_escape_string(cdc_lakehouse._cdc_paths_glob(paths)) }}',
            lineSep '\n',
            `io.compression.codecs` 'io.airlift.compress.zstd.ZstdCodec'
        )
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_invocation_cache('landing_views').update({view_name: true}) -%}
    {{ return(view_name) }}
{% endmacro %}
