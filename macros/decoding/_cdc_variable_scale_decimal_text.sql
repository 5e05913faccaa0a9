{% macro _cdc_variable_scale_decimal_text(lexeme) %}
    {#-
        Exact decimal text of an io.debezium.data.VariableScaleDecimal.
        `lexeme` is the value's JSON text, {"scale": s, "value": "<base64 unscaled>"} (an
        unconstrained PostgreSQL numeric, an Oracle NUMBER without precision): the text at
        scale s (2.5, 123456789012345678901234567890.125). Null when it has another shape.
    -#}
    case when startswith({{ lexeme }}, '{') then
        transform(
            array(from_json({{ lexeme }}, 'struct<scale: int, value: string>')),
            variable_scale -> {{ cdc_lakehouse._cdc_decimal_text(
                cdc_lakehouse._cdc_unscaled_text("try_to_binary(variable_scale.value, 'base64')"),
                "variable_scale.scale"
            ) }}
        )[0]
    end
{% endmacro %}
