{% macro _cdc_iso_local_datetime_text(units, digits) %}
    {#-
        ISO local date-time text from a count of fractional seconds since 1970.
        'yyyy-MM-ddTHH:mm:ss.<digits fraction digits>' from a bigint count of 10^-digits
        seconds since 1970-01-01T00:00 (a local date-time: no zone, no session time zone
        involved; floor division, so instants before 1970 work too).
    -#}
    {%- set per_second = 10 ** digits -%}
    {%- set per_day = 86400 * per_second -%}
    {%- set days = "((" ~ units ~ " - pmod(" ~ units ~ ", cast(" ~ per_day ~ " as bigint))) div cast(" ~ per_day ~ " as bigint))" -%}
    case when try_cast({{ days }} as int) is not null then concat(
        cast(date_from_unix_date(try_cast({{ days }} as int)) as string),
        'T',
        {{ cdc_lakehouse._cdc_iso_time_text("pmod(" ~ units ~ ", cast(" ~ per_day ~ " as bigint))", digits) }}
    ) end
{% endmacro %}
