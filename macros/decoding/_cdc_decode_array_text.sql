{% macro _cdc_decode_array_text(lexeme, column_type) %}
    {#-
        The JSON text of an array value with each element decoded as its scalar twin.
        `lexeme` is a JSON array's text, `column_type` the column's struct<type, name,
        scale, ...> whose `type` is 'array' and whose `name` and `scale` are its elements'
        (cdc_column_types): every element _cdc_decode_semantic_text decodes becomes a JSON
        string of its decoded text ([19723] -> ["2024-01-01"], ["AJY="] at scale 2 ->
        ["1.50"]); nulls and the other elements keep their JSON text. Null when the value is
        no such array, nothing in it decodes, or it is one of the array forms of the
        unavailable-value placeholder (_cdc_unavailable_array_forms: the carry-over must
        still recognise it).
    -#}
    {%- set placeholders = cdc_lakehouse._cdc_unavailable_array_forms() -%}
    case when startswith({{ lexeme }}, '[')
        {%- for form in placeholders %}
        and {{ lexeme }} != '{{ cdc_lakehouse._cdc_escape_string(form) }}'
        {%- endfor %}
        then transform(
            array(transform(
                zip_with(
                    from_json({{ lexeme }}, 'array<string>'),
                    from_json({{ lexeme }}, 'array<variant>'),
                    (element_text, element_value) -> named_struct(
                        'lexeme', element_text,
                        'is_string', schema_of_variant(element_value) = 'STRING'
                    )
                ),
                element -> named_struct(
                    'lexeme', element.lexeme,
                    'is_string', element.is_string,
                    'decoded', case when element.lexeme is not null then {{ cdc_lakehouse._cdc_decode_semantic_text(
                        'element.lexeme', 'element.is_string', column_type
                    ) }} end
                )
            )),
            elements -> case when exists(elements, e -> e.decoded is not null) then concat(
                '[',
                array_join(transform(elements, e -> case
                    when e.decoded is not null then {{ cdc_lakehouse._cdc_json_string('e.decoded') }}
                    when e.lexeme is null then 'null'
                    when e.is_string then {{ cdc_lakehouse._cdc_json_string('e.lexeme') }}
                    else e.lexeme
                end), ','),
                ']'
            ) end
        )[0]
    end
{% endmacro %}
