{% macro _cdc_decode_unscaled(binary_expression) %}
    {#-
        _cdc_decode_twos_complement, null for more than 38 digits.
        _cdc_decode_twos_complement of `binary_expression` (evaluated once), but null (never
        an overflow error under ANSI mode) for an integer of more than 38 digits: more than
        16 bytes, or 16 bytes beyond +-(10^38 - 1) (hex 4B3B4CA85A86C47A098A223FFFFFFFFF /
        B4C4B357A5793B85F675DDC000000001).
    -#}
    transform(array({{ binary_expression }}), unscaled_bytes -> case
        when octet_length(unscaled_bytes) < 16
            or (octet_length(unscaled_bytes) = 16 and (
                hex(unscaled_bytes) <= '4B3B4CA85A86C47A098A223FFFFFFFFF'
                or hex(unscaled_bytes) >= 'B4C4B357A5793B85F675DDC000000001'
            ))
            then {{ cdc_lakehouse._cdc_decode_twos_complement('unscaled_bytes') }}
    end)[0]
{% endmacro %}
