{% macro _cdc_unscaled_text(binary_expression) %}
    {#- Signed decimal text of a big-endian two's-complement integer of any length. -#}
    transform(array({{ binary_expression }}), unscaled_bytes -> case
        when unscaled_bytes is null or octet_length(unscaled_bytes) = 0 then cast(null as string)
        when octet_length(unscaled_bytes) < 16
            then cast({{ cdc_lakehouse._cdc_decode_twos_complement('unscaled_bytes') }} as string)
        else {{ cdc_lakehouse._cdc_wide_integer_text('hex(unscaled_bytes)') }}
    end)[0]
{% endmacro %}

{% macro _cdc_wide_integer_text(hex_digits) %}
    {#- Signed decimal text of a two's-complement integer given as hex digits, any length. -#}
    transform(
        array(named_struct(
            'digits', {{ hex_digits }},
            'negative', cast(conv(substr({{ hex_digits }}, 1, 2), 16, 10) as int) >= 128
        )),
        wide -> transform(
            array(aggregate(
                sequence(0, length(wide.digits) div 2 - 1),
                array(cast(0 as bigint)),
                (wide_limbs, wide_byte_index) -> aggregate(
                    wide_limbs,
                    named_struct(
                        'limbs', cast(array() as array<bigint>),
                        'carry', transform(
                            array(cast(conv(substr(wide.digits, wide_byte_index * 2 + 1, 2), 16, 10) as bigint)),
                            wide_byte -> if(wide.negative, 255 - wide_byte, wide_byte)
                        )[0]
                    ),
                    (wide_step, wide_limb) -> named_struct(
                        'limbs', concat(wide_step.limbs, array((wide_limb * 256 + wide_step.carry) % 1000000000)),
                        'carry', (wide_limb * 256 + wide_step.carry) div 1000000000
                    ),
                    wide_step -> if(wide_step.carry > 0, concat(wide_step.limbs, array(wide_step.carry)), wide_step.limbs)
                )
            )),
            wide_magnitude -> transform(
                array(if(
                    wide.negative,
                    aggregate(
                        wide_magnitude,
                        named_struct('limbs', cast(array() as array<bigint>), 'carry', cast(1 as bigint)),
                        (plus_one, plus_limb) -> named_struct(
                            'limbs', concat(plus_one.limbs, array((plus_limb + plus_one.carry) % 1000000000)),
                            'carry', (plus_limb + plus_one.carry) div 1000000000
                        ),
                        plus_one -> if(plus_one.carry > 0, concat(plus_one.limbs, array(plus_one.carry)), plus_one.limbs)
                    ),
                    wide_magnitude
                )),
                wide_result -> concat(
                    if(wide.negative, '-', ''),
                    array_join(
                        transform(
                            reverse(wide_result),
                            (wide_part, wide_part_index) -> if(
                                wide_part_index = 0,
                                cast(wide_part as string),
                                lpad(cast(wide_part as string), 9, '0')
                            )
                        ),
                        ''
                    )
                )
            )[0]
        )[0]
    )[0]
{% endmacro %}
