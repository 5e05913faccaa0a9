{% macro _cdc_decode_twos_complement(binary_expression) %}
    {#- decimal(38,0) from a big-endian two's-complement integer. -#}
    {%- set hex_digits = 'hex(' ~ binary_expression ~ ')' -%}
    case
        when {{ binary_expression }} is not null and octet_length({{ binary_expression }}) > 0
            then aggregate(
                transform(
                    sequence(0, length({{ hex_digits }}) div 2 - 1),
                    i -> cast(conv(substr({{ hex_digits }}, i * 2 + 1, 2), 16, 10) as int)
                ),
                named_struct(
                    'negative', cast(conv(substr({{ hex_digits }}, 1, 2), 16, 10) as int) >= 128,
                    'magnitude', cast(0 as decimal(38, 0))
                ),
                (acc, byte) -> named_struct(
                    'negative', acc.negative,
                    'magnitude', cast(
                        acc.magnitude * 256
                        + case when acc.negative then 255 - byte else byte end
                        as decimal(38, 0)
                    )
                ),
                acc -> case
                    when acc.negative then cast(0 - (acc.magnitude + 1) as decimal(38, 0))
                    else acc.magnitude
                end
            )
    end
{% endmacro %}
