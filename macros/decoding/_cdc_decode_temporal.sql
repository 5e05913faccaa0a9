{% macro _cdc_decode_date(raw, semantic, connector) %}
    {#-
        date from Debezium's and Kafka Connect's date encodings.
        date from: io.debezium.time.Date / org.apache.kafka.connect.data.Date (days since
        1970-01-01), io.debezium.time.Timestamp (ms; Oracle DATE columns), an ISO date
        string. Without a semantic type: Oracle sends ms, every other connector days.
    -#}
    case
        when {{ raw }} rlike '^-?[0-9]+$' then
            case
                when coalesce(
                    {{ semantic }},
                    case when {{ connector }} = 'oracle' then 'io.debezium.time.Timestamp' end,
                    'io.debezium.time.Date'
                ) in ('io.debezium.time.Timestamp', 'org.apache.kafka.connect.data.Timestamp')
                    then date_from_unix_date(cast(floor(cast({{ raw }} as decimal(38, 0)) / 86400000) as int))
                when coalesce({{ semantic }}, 'io.debezium.time.Date') in (
                    'io.debezium.time.Date', 'org.apache.kafka.connect.data.Date'
                )
                    then date_from_unix_date(try_cast({{ raw }} as int))
            end
        else try_cast(substr({{ raw }}, 1, 10) as date)
    end
{% endmacro %}

{% macro _cdc_decode_timestamp(raw, semantic) %}
    {#-
        timestamp from Debezium's and Kafka Connect's timestamp encodings.
        timestamp (an instant; zone-less source values are read as UTC) from:
        io.debezium.time.Timestamp and org.apache.kafka.connect.data.Timestamp (ms),
        io.debezium.time.MicroTimestamp (µs), io.debezium.time.NanoTimestamp (ns),
        io.debezium.time.ZonedTimestamp (ISO-8601 text). A number with no semantic type
        is read as µs (set the column's `meta.cdc_encoding` otherwise).
    -#}
    case
        when {{ raw }} rlike '^-?[0-9]+$' then
            case coalesce({{ semantic }}, 'io.debezium.time.MicroTimestamp')
                when 'io.debezium.time.Timestamp' then timestamp_millis(try_cast({{ raw }} as bigint))
                when 'org.apache.kafka.connect.data.Timestamp' then timestamp_millis(try_cast({{ raw }} as bigint))
                when 'io.debezium.time.MicroTimestamp' then timestamp_micros(try_cast({{ raw }} as bigint))
                when 'io.debezium.time.NanoTimestamp' then timestamp_micros(
                    cast(floor(cast({{ raw }} as decimal(38, 0)) / 1000) as bigint)
                )
            end
        else try_cast({{ raw }} as timestamp)
    end
{% endmacro %}

{% macro _cdc_decode_string(raw, semantic, column_type='cast(null as struct<type: string, name: string, scale: string>)') %}
    {#-
        string from the text sent, times of day and variable-scale decimals decoded to text.
        string columns: the text as sent, except times of day, which arrive as numbers
        (io.debezium.time.Time and org.apache.kafka.connect.data.Time: ms since midnight;
        io.debezium.time.MicroTime: µs; io.debezium.time.NanoTime: ns) and become
        '[-]HH:mm:ss.ffffff' text (Spark has no time-of-day type; a MySQL TIME may be
        negative or past 24 hours), and io.debezium.data.VariableScaleDecimal, which
        arrives as {"scale", "value"} and becomes its exact decimal text (an unconstrained
        numeric can exceed every Spark decimal), as does an
        org.apache.kafka.connect.data.Decimal whose message schema gives its scale (a
        numeric(p,s) with p over 38). Arrays: _cdc_decode_string_array.
    -#}
    case
        when coalesce({{ semantic }} = 'org.apache.kafka.connect.data.Decimal', false)
            and {{ column_type }}.type = 'bytes' and {{ column_type }}.scale is not null then
            {{ cdc_lakehouse._cdc_decimal_text(
                cdc_lakehouse._cdc_unscaled_text("try_to_binary(" ~ raw ~ ", 'base64')"),
                "try_cast(" ~ column_type ~ ".scale as int)"
            ) }}
        when coalesce({{ semantic }} = 'io.debezium.data.VariableScaleDecimal', false)
            and startswith({{ raw }}, '{') then
            {{ cdc_lakehouse._cdc_variable_scale_decimal_text(raw) }}
        -- the type test first: for most string columns it is false, and the pattern is
        -- not evaluated
        when coalesce({{ semantic }} in (
            'io.debezium.time.Time', 'org.apache.kafka.connect.data.Time',
            'io.debezium.time.MicroTime', 'io.debezium.time.NanoTime'
        ), false) and {{ raw }} rlike '^-?[0-9]+$' then {{ cdc_lakehouse._cdc_format_time_of_day(
            "case " ~ semantic
            ~ " when 'io.debezium.time.MicroTime' then cast(" ~ raw ~ " as bigint)"
            ~ " when 'io.debezium.time.NanoTime' then cast(" ~ raw ~ " as bigint) div 1000"
            ~ " else cast(" ~ raw ~ " as bigint) * 1000 end"
        ) }}
        else {{ raw }}
    end
{% endmacro %}

{% macro _cdc_format_time_of_day(micros) %}
    {#- '[-]HH:mm:ss.ffffff' from signed microseconds since midnight (_cdc_iso_time_text). -#}
    {{ cdc_lakehouse._cdc_iso_time_text(micros, 6) }}
{% endmacro %}

{% macro _cdc_decode_string_array(raw, element_name, column_type) %}
    {#-
        SQL: the JSON text of an array held in a string column, each element decoded.
        The column's contract encoding is `array` or `array<name>`; each element decodes as
        its scalar twin (_cdc_decode_array_text), the
        elements' semantic type from the message's schema (`column_type`, type 'array'),
        else `element_name`; the text as sent when nothing in it decodes.
    -#}
    {%- set element_type -%}
        named_struct(
            'type', 'array',
            'name', coalesce({{ column_type }}.name, {{ "'" ~ cdc_lakehouse._cdc_escape_string(element_name) ~ "'" if element_name else 'cast(null as string)' }}),
            'scale', {{ column_type }}.scale
        )
    {%- endset -%}
    coalesce({{ cdc_lakehouse._cdc_decode_array_text(raw, element_type) }}, {{ raw }})
{% endmacro %}
