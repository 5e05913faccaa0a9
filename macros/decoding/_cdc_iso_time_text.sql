{% macro _cdc_iso_time_text(units, digits) %}
    {#-
        'HH:mm:ss.<digits fraction digits>' from a bigint count of 10^-digits seconds since
        midnight; null outside [00:00, 24:00) (e.g. a MySQL TIME of -1 or 25 hours).
    -#}
    {%- set per_second = 10 ** digits -%}
    case
        when {{ units }} >= 0 and {{ units }} < cast({{ 86400 * per_second }} as bigint) then concat(
            lpad(cast({{ units }} div {{ 3600 * per_second }} as string), 2, '0'),
            ':',
            lpad(cast(({{ units }} div {{ 60 * per_second }}) % 60 as string), 2, '0'),
            ':',
            lpad(cast(({{ units }} div {{ per_second }}) % 60 as string), 2, '0'),
            '.',
            lpad(cast({{ units }} % {{ per_second }} as string), {{ digits }}, '0')
        )
    end
{% endmacro %}
