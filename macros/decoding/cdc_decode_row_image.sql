{% macro cdc_decode_row_image(image, column_types) -%}
    {%- set names = cdc_lakehouse._cdc_decodable_semantic_names() -%}
    {%- set placeholders = cdc_lakehouse._cdc_unavailable_array_forms() -%}
    {%- set element_json -%}
        case
            when e.decoded is not null then {{ cdc_lakehouse._cdc_json_string('e.decoded') }}
            when e.lexeme is null then 'null'
            when e.is_string then {{ cdc_lakehouse._cdc_json_string('e.lexeme') }}
            else e.lexeme
        end
    {%- endset -%}
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
                        'is_string', schema_of_variant(value) = 'STRING',
                        'column_type', coalesce({{ column_types }}[entry.key], {{ column_types }}[lower(entry.key)]),
                        'is_array', coalesce(
                            coalesce({{ column_types }}[entry.key], {{ column_types }}[lower(entry.key)]).type = 'array'
                            and startswith(entry.value, '[')
                            {%- for form in placeholders %}
                            and entry.value != '{{ cdc_lakehouse._cdc_escape_string(form) }}'
                            {%- endfor %},
                            false
                        )
                    )
                ),
                field -> named_struct(
                    'key', field.key,
                    'lexeme', field.lexeme,
                    'is_string', field.is_string,
                    'is_array', field.is_array,
                    'elements', transform(
                        case
                            when field.is_array then zip_with(
                                from_json(field.lexeme, 'array<string>'),
                                from_json(field.lexeme, 'array<variant>'),
                                (element_text, element_value) -> named_struct(
                                    'lexeme', element_text,
                                    'is_string', schema_of_variant(element_value) = 'STRING'
                                )
                            )
                            else array(named_struct('lexeme', field.lexeme, 'is_string', field.is_string))
                        end,
                        element -> named_struct(
                            'lexeme', element.lexeme,
                            'is_string', element.is_string,
                            'decoded', case when element.lexeme is not null and field.column_type.name is not null then {{ cdc_lakehouse._cdc_decode_semantic_text(
                                'element.lexeme', 'element.is_string', 'field.column_type'
                            ) }} end
                        )
                    )
                )
            )),
            fields -> case
                when exists(fields, f -> exists(f.elements, e -> e.decoded is not null)) then named_struct(
                    'json', concat('{', array_join(transform(fields, f -> concat(
                        {{ cdc_lakehouse._cdc_json_string('f.key') }},
                        ':',
                        case
                            when f.lexeme is null then 'null'
                            when f.is_array and exists(f.elements, e -> e.decoded is not null) then concat(
                                '[', array_join(transform(f.elements, e -> {{ element_json }}), ','), ']'
                            )
                            when not f.is_array and f.elements[0].decoded is not null
                                then {{ cdc_lakehouse._cdc_json_string('f.elements[0].decoded') }}
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
