{% macro _cdc_decimal_text(unscaled, scale) %}
    {#- Exact plain decimal text of an unscaled integer and a scale. -#}
    transform(
        array(named_struct('n', {{ unscaled }}, 's', {{ scale }})),
        decimal_parts -> transform(
            array(named_struct(
                'negative', startswith(cast(decimal_parts.n as string), '-'),
                'digits', replace(cast(decimal_parts.n as string), '-', ''),
                's', decimal_parts.s
            )),
            d -> case
                when d.digits is null or d.s is null then cast(null as string)
                when d.s <= 0 then case
                    when d.digits = '0' then '0'
                    else concat(case when d.negative then '-' else '' end, d.digits, repeat('0', 0 - d.s))
                end
                else concat(
                    case when d.negative then '-' else '' end,
                    substr(
                        lpad(d.digits, greatest(length(d.digits), d.s + 1), '0'),
                        1,
                        greatest(length(d.digits), d.s + 1) - d.s
                    ),
                    '.',
                    right(lpad(d.digits, greatest(length(d.digits), d.s + 1), '0'), d.s)
                )
            end
        )[0]
    )[0]
{% endmacro %}

{% macro _cdc_decimal_parts_text(parts) %}
    {#- Exact plain decimal text of a struct<unscaled: binary, scale: int>. -#}
    {{ cdc_lakehouse._cdc_let(parts, 'decimal_parts_of', cdc_lakehouse._cdc_decimal_text(
        cdc_lakehouse._cdc_unscaled_text('decimal_parts_of.unscaled'), 'decimal_parts_of.scale'
    )) }}
{% endmacro %}
