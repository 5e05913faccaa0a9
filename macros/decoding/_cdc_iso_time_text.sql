{% macro _cdc_iso_time_text(units, digits) %}
    {#- '[-]HH:mm:ss.fff...' text from a signed count of fractional seconds. -#}
    {%- set per_second = 10 ** digits -%}
    {%- set body -%}
        case when time_units is not null then format_string(
            '%s%02d:%02d:%02d.%0{{ digits }}d',
            case when time_units < 0 then '-' else '' end,
            abs(time_units) div {{ 3600 * per_second }},
            (abs(time_units) div {{ 60 * per_second }}) % 60,
            (abs(time_units) div {{ per_second }}) % 60,
            abs(time_units) % {{ per_second }}
        ) end
    {%- endset -%}
    {{ cdc_lakehouse._cdc_let('cast(' ~ units ~ ' as bigint)', 'time_units', body) }}
{% endmacro %}
