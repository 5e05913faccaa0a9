{% macro _cdc_decimal_text(unscaled, scale) %}
    {#-
        Exact plain decimal text of an unscaled integer and a scale.
        Exact plain decimal text (BigDecimal.toPlainString) of unscaled * 10^-scale, from an
        integer `unscaled` (a decimal(38,0), or integer text of any length such as
        _cdc_unscaled_text gives) and an int `scale`: `scale` digits after the point
        (123.40, -0.05, 0.000); a scale of 0 or below gives an integer. Null when either is
        null.
        Each argument is evaluated once (bound by a one-element transform).
    -#}
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
