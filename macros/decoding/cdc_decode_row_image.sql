{% macro cdc_decode_row_image(image, column_types) %}
    {#-
        struct<json: string, is_decoded: boolean>: the JSON row image `image` with every
        top-level value the message's own schema (`column_types`, see cdc_column_types)
        says how to decode replaced by its decoded text (_cdc_decode_semantic_text), and
        whether any value was. Every other value keeps its JSON text as the change log
        holds it (a number `1.0` stays `1.0`, nested JSON stays). A row without a schema,
        or whose schema names no decodable type, is returned as it is without being
        parsed; so is a row in which nothing could be decoded (all such values null).
    -#}
    {%- set names = cdc_lakehouse._cdc_decodable_semantic_names() -%}
    case
        when {{ image }} is null
            or {{ column_types }} is null
            or not exists(
                map_values({{ column_types }}),
                t -> coalesce(t.name in ('{{ names | join("', '") }}'), false)
            )
            then named_struct('json', {{ image }}, 'is_decoded', false)
        else transform(
            array(transform(
                zip_with(
                    map_entries(from_json({{ image }}, 'map<string, string>')),
                    map_values(from_json({{ image }}, 'map<string, variant>')),
                    (entry, value) -> named_struct(
                        'key', entry.key,
                        'lexeme', entry.value,
                        'is_string', schema_of_variant(value) = 'STRING'
                    )
                ),
                field -> named_struct(
                    'key', field.key,
                    'lexeme', field.lexeme,
                    'is_string', field.is_string,
                    'decoded', case when field.lexeme is not null then {{ cdc_lakehouse._cdc_decode_semantic_text(
                        'field.lexeme', 'field.is_string', 'coalesce(' ~ column_types ~ '[field.key], ' ~ column_types ~ '[lower(field.key)])'
                    ) }} end
                )
            )),
            fields -> case
                when exists(fields, f -> f.decoded is not null) then named_struct(
                    'json', concat('{', array_join(transform(fields, f -> concat(
                        {{ cdc_lakehouse._cdc_json_string('f.key') }},
                        ':',
                        case
                            when f.decoded is not null then {{ cdc_lakehouse._cdc_json_string('f.decoded') }}
                            when f.lexeme is null then 'null'
                            when f.is_string then {{ cdc_lakehouse._cdc_json_string('f.lexeme') }}
                            else f.lexeme
                        end
                    )), ','), '}'),
                    'is_decoded', true
                )
                else named_struct('json', {{ image }}, 'is_decoded', false)
            end
        )[0]
    end
{% endmacro %}
