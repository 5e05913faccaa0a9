{% macro _cdc_record_extensions() %}
    {#- The file name extensions of the landing files that are record containers, by container. -#}
    {{ return({'avro': 'avro', 'parquet': 'parquet'}) }}
{% endmacro %}

{% macro _cdc_record_files_among(paths) %}
    {#- The paths among `paths` with an extension of _cdc_record_extensions, in order. -#}
    {{ return(cdc_lakehouse._cdc_paths_with_extensions(paths, cdc_lakehouse._cdc_record_extensions())) }}
{% endmacro %}

{% macro _cdc_landing_file_bytes(sources) %}
    {#- SQL: the landing files of `sources` with their bytes, one row each. -#}
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
    {#- SQL: every record of one Avro or Parquet landing file as a JSON line, or why none. -#}
    reflect(
        'cdc.landing.CdcSinkRecords',
        'jsonLines',
        base64({{ content_expression }}),
        {{ cdc_lakehouse._cdc_record_container(path_expression) }}
    )
{%- endmacro %}
