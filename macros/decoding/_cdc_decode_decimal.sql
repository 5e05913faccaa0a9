{% macro _cdc_decode_decimal(raw, dtype, encoding, column_type) %}
    {#-
        decimal(p,s) from any of Debezium's decimal handling modes.
        decimal(p,s) from Debezium's three `decimal.handling.mode`s:
          precise  base64 of the big-endian two's-complement unscaled integer, with the
                   scale from the message schema (`parameters.scale`) or the contract
          double   a JSON number;  string  a JSON string
        and io.debezium.data.VariableScaleDecimal, an object {"scale": s, "value": base64}
        (PostgreSQL NUMERIC without scale, Oracle NUMBER without precision).
        An unscaled integer of any length is read exactly (_cdc_unscaled_text): a value
        that does not fit `dtype` is null (the caller reports a type_mismatch), never an
        overflow error.
        A negative scale (Oracle NUMBER(p,s<0) rounds to 10^-s) multiplies the unscaled
        integer: scale -2 and 123 give 12300 (declare NUMBER(5,-2) as decimal(7,0)).
        The mode is the column's encoding, else what the message schema says (bytes
        means precise), else, for a message without a schema, the value itself: a decimal
        literal with a point or a minus sign (a double's or BigDecimal.toPlainString()
        text; base64 has neither character) is read as a number, anything else by the
        project var cdc_decimal_handling. So sources with different modes share one
        contract; only an unsigned integer literal of a scale-0 column is ambiguous
        (declare the column's encoding, or set the var, for such sources).
    -#}
    {%- set accepted = ['precise', 'double', 'string', 'org.apache.kafka.connect.data.Decimal'] -%}
    {%- if encoding and encoding not in accepted -%}
        {{ exceptions.raise_compiler_error(
            "decimal column encoding '" ~ encoding ~ "' is not one of " ~ accepted | join(', ')
        ) }}
    {%- endif -%}
    {%- set target_scale = (dtype.split(',')[1] | replace(')', '') | int) if ',' in dtype else 0 -%}
    {%- set default_mode = cdc_lakehouse.cdc_var('cdc_decimal_handling') -%}
    {%- if default_mode not in ['precise', 'double', 'string'] -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_decimal_handling is '" ~ default_mode ~ "'; accepted: precise, double, string"
        ) }}
    {%- endif -%}
    {%- set mode -%}
        {%- if encoding -%}
            '{{ 'precise' if encoding == 'org.apache.kafka.connect.data.Decimal' else encoding }}'
        {%- else -%}
            case
                when {{ column_type }}.type = 'bytes' then 'precise'
                when {{ column_type }}.type in ('float32', 'float64') then 'double'
                when {{ column_type }}.type = 'string' then 'string'
                when {{ column_type }}.type is null
                    and {{ raw }} rlike '^-?[0-9]+([.][0-9]*)?([eE][-+]?[0-9]+)?$'
                    and {{ raw }} rlike '[.-]'
                    then 'string'
                else '{{ default_mode }}'
            end
        {%- endif -%}
    {%- endset -%}
    case
        when left(ltrim({{ raw }}), 1) = '{' then {{ cdc_lakehouse._cdc_decode_variable_scale_decimal(raw, dtype) }}
        when {{ mode }} = 'precise' then try_cast(concat(
            {{ cdc_lakehouse._cdc_unscaled_text('try_to_binary(' ~ raw ~ ", 'base64')") }},
            'E',
            -try_cast(coalesce({{ column_type }}.scale, '{{ target_scale }}') as int)
        ) as {{ dtype }})
        when {{ raw }} rlike '^-?[0-9]+([.][0-9]*)?([eE][-+]?[0-9]+)?$'
            then try_cast({{ raw }} as {{ dtype }})
    end
{% endmacro %}

{% macro _cdc_decode_variable_scale_decimal(raw, dtype) %}
    {#- io.debezium.data.VariableScaleDecimal: {"scale": s, "value": "<base64 unscaled>"}. -#}
    {%- set parsed = "from_json(" ~ raw ~ ", 'struct<scale: int, value: string>')" -%}
    try_cast(concat(
        {{ cdc_lakehouse._cdc_unscaled_text("try_to_binary(" ~ parsed ~ ".value, 'base64')") }},
        'E',
        -{{ parsed }}.scale
    ) as {{ dtype }})
{% endmacro %}
