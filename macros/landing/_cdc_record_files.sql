{% macro _cdc_record_extensions() %}
    {#-
        The file name extensions of the landing files that are record containers, by container.
        `.avro` (an Avro object container: Kafka Connect's S3, GCS and HDFS sinks with
        `format.class` AvroFormat) and `.parquet` (ParquetFormat; the sinks name a file
        `.<codec>.parquet`, such as `.snappy.parquet`). Bronze reads each record of such a
        file as a message (_cdc_landing_record_texts), not its lines.
    -#}
    {{ return({'avro': 'avro', 'parquet': 'parquet'}) }}
{% endmacro %}

{% macro _cdc_record_files_among(paths) %}
    {#- The paths among `paths` with an extension of _cdc_record_extensions, in order. -#}
    {{ return(cdc_lakehouse._cdc_paths_with_extensions(paths, cdc_lakehouse._cdc_record_extensions())) }}
{% endmacro %}

{% macro _cdc_landing_file_bytes(sources) %}
    {#-
        SQL: the landing files of `sources` with their bytes, one row each.
        `sources` is a list of {relation, paths}: a view of files with their bytes
        (binaryFile's, or the unlisted files' of the Python UDF) and the paths to read of
        it. Columns `source_file`, `source_file_modified_at`, `file_length`, `content`, and
        the sink file name's `file_topic`, `file_partition`, `file_start_offset`.
    -#}
    {%- for source in sources %}
    select
        path as source_file,
        modificationtime as source_file_modified_at,
        length as file_length,
        content,
        {{ cdc_lakehouse._cdc_sink_file_coordinates('path') }}
    from {{ source.relation }}
    where {{ cdc_lakehouse._cdc_in_list('path', source.paths) }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}

{% macro _cdc_record_container(path_expression) %}
    {#- SQL: the record container (`avro`, `parquet`) of the file `path_expression` names, by extension. -#}
    case
    {%- for extension, container in cdc_lakehouse._cdc_record_extensions().items() %}
        when endswith(lower({{ path_expression }}), '.{{ extension }}') then '{{ container }}'
    {%- endfor %}
    end
{%- endmacro %}

{% macro _cdc_landing_record_texts(content_expression, path_expression) %}
    {#-
        SQL: every record of one Avro or Parquet landing file as a JSON line, or why none.
        The file's bytes (`content_expression`) go to the reader compiled at set-up
        (cdc_tools/jvm/CdcSinkRecords.java, on `spark.jars` with parquet-avro) through Spark
        SQL's `reflect`, once per file: its records, one line each, in the form Kafka Connect's
        JsonConverter writes a value with schemas on (`{"schema": ..., "payload": ...}`, the
        Connect schema rebuilt from the file's Avro schema as Confluent's AvroData rebuilds
        it), joined by '\n'. A file that cannot be read whole gives one line
        `!unreadable<TAB><records read><TAB><why>`; a file of no records `!empty<TAB>0<TAB>`.
        The file is held whole in memory while it is decoded.
    -#}
    reflect(
        'cdc.landing.CdcSinkRecords',
        'jsonLines',
        base64({{ content_expression }}),
        {{ cdc_lakehouse._cdc_record_container(path_expression) }}
    )
{%- endmacro %}
