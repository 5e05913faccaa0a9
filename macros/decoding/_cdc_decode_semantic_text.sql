{% macro _cdc_decode_semantic_text(lexeme, is_string, column_type) %}
    {#- The decoded text of one row-image value of a known semantic type. -#}
    {%- set integer = "try_cast(" ~ lexeme ~ " as bigint)" -%}
    {%- set decimal_parts -%}
        case {{ column_type }}.name
            when 'org.apache.kafka.connect.data.Decimal' then case when {{ is_string }} then named_struct(
                'unscaled', try_to_binary({{ lexeme }}, 'base64'),
                'scale', coalesce(try_cast({{ column_type }}.scale as int), 0)
            ) end
            when 'io.debezium.data.VariableScaleDecimal' then case when not {{ is_string }} and startswith({{ lexeme }}, '{') then
                {{ cdc_lakehouse._cdc_variable_scale_parts(lexeme) }}
            end
        end
    {%- endset -%}
    case
        when {{ column_type }}.name in ('org.apache.kafka.connect.data.Decimal', 'io.debezium.data.VariableScaleDecimal')
            then {{ cdc_lakehouse._cdc_decimal_parts_text(decimal_parts) }}
        when {{ is_string }} or not ({{ lexeme }} rlike '^-?[0-9]+$') then cast(null as string)
        when {{ column_type }}.name in ('io.debezium.time.Date', 'org.apache.kafka.connect.data.Date')
            then cast(date_from_unix_date(try_cast({{ lexeme }} as int)) as string)
        when {{ column_type }}.name in ('io.debezium.time.Time', 'org.apache.kafka.connect.data.Time')
            then {{ cdc_lakehouse._cdc_iso_time_text(integer, 3) }}
        when {{ column_type }}.name = 'io.debezium.time.MicroTime' then {{ cdc_lakehouse._cdc_iso_time_text(integer, 6) }}
        when {{ column_type }}.name = 'io.debezium.time.NanoTime' then {{ cdc_lakehouse._cdc_iso_time_text(integer, 9) }}
        when {{ column_type }}.name in ('io.debezium.time.Timestamp', 'org.apache.kafka.connect.data.Timestamp')
            then {{ cdc_lakehouse._cdc_iso_local_datetime_text(integer, 3) }}
        when {{ column_type }}.name = 'io.debezium.time.MicroTimestamp'
            then {{ cdc_lakehouse._cdc_iso_local_datetime_text(integer, 6) }}
        when {{ column_type }}.name = 'io.debezium.time.NanoTimestamp'
            then {{ cdc_lakehouse._cdc_iso_local_datetime_text(integer, 9) }}
    end
{% endmacro %}

{% macro _cdc_iso_local_datetime_text(units, digits) %}
    {#- ISO local date-time text from a count of fractional seconds since 1970. -#}
    {%- set per_second = 10 ** digits -%}
    {%- set per_day = 86400 * per_second -%}
    {%- set days = "((" ~ units ~ " - pmod(" ~ units ~ ", cast(" ~ per_day ~ " as bigint))) div cast(" ~ per_day ~ " as bigint))" -%}
    case when try_cast({{ days }} as int) is not null then concat(
        cast(date_from_unix_date(try_cast({{ days }} as int)) as string),
        'T',
        {{ cdc_lakehouse._cdc_iso_time_text("pmod(" ~ units ~ ", cast(" ~ per_day ~ " as bigint))", digits) }}
    ) end
{% endmacro %}

{% macro _cdc_decodable_semantic_names() %}
    {#- The semantic type names whose values _cdc_decode_semantic_text decodes. -#}
    {{ return([
        'org.apache.kafka.connect.data.Decimal',
        'io.debezium.data.VariableScaleDecimal',
        'io.debezium.time.Date',
        'org.apache.kafka.connect.data.Date',
        'io.debezium.time.Time',
        'org.apache.kafka.connect.data.Time',
        'io.debezium.time.MicroTime',
        'io.debezium.time.NanoTime',
        'io.debezium.time.Timestamp',
        'org.apache.kafka.connect.data.Timestamp',
        'io.debezium.time.MicroTimestamp',
        'io.debezium.time.NanoTimestamp',
    ]) }}
{% endmacro %}
