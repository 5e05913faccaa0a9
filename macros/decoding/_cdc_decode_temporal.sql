{% macro _cdc_decode_date(raw, semantic, connector) %}
    {#- date from Debezium's and Kafka Connect's date encodings. -#}
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
    {#- timestamp from Debezium's and Kafka Connect's timestamp encodings. -#}
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
    {#- string from the text sent, times of day and decimals decoded to text. -#}
    {%- set is_decimal_bytes -%}
        coalesce({{ semantic }} = 'org.apache.kafka.connect.data.Decimal', false)
            and {{ column_type }}.type = 'bytes' and {{ column_type }}.scale is not null
    {%- endset -%}
    {%- set decimal_parts -%}
        case
            when {{ is_decimal_bytes }} then named_struct(
                'unscaled', try_to_binary({{ raw }}, 'base64'),
                'scale', try_cast({{ column_type }}.scale as int)
            )
            else {{ cdc_lakehouse._cdc_variable_scale_parts(raw) }}
        end
    {%- endset -%}
    case
        -- both decimal encodings share one decoder: the SQL holds it once
        when {{ is_decimal_bytes }} or (
            coalesce({{ semantic }} = 'io.debezium.data.VariableScaleDecimal', false)
            and startswith({{ raw }}, '{')
        ) then {{ cdc_lakehouse._cdc_decimal_parts_text(decimal_parts) }}
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
    {#- SQL: the JSON text of an array held in a string column, each element decoded. -#}
    {%- set element_type -%}
        named_struct(
            'type', 'array',
            'name', coalesce({{ column_type }}.name, {{ "'" ~ cdc_lakehouse._cdc_escape_string(element_name) ~ "'" if element_name else 'cast(null as string)' }}),
            'scale', {{ column_type }}.scale
        )
    {%- endset -%}
    coalesce({{ cdc_lakehouse._cdc_decode_array_text(raw, element_type) }}, {{ raw }})
{% endmacro %}

{% macro _cdc_decode_array_text(lexeme, column_type) %}
    {#- The JSON text of an array value with each element decoded as its scalar twin. -#}
    {%- set placeholders = cdc_lakehouse._cdc_unavailable_array_forms() -%}
    case when startswith({{ lexeme }}, '[')
        {%- for form in placeholders %}
        and {{ lexeme }} != '{{ cdc_lakehouse._cdc_escape_string(form) }}'
        {%- endfor %}
        then transform(
            array(transform(
                zip_with(
                    from_json({{ lexeme }}, 'array<string>'),
                    from_json({{ lexeme }}, 'array<variant>'),
                    (element_text, element_value) -> named_struct(
                        'lexeme', element_text,
                        'is_string', schema_of_variant(element_value) = 'STRING'
                    )
                ),
                element -> named_struct(
                    'lexeme', element.lexeme,
                    'is_string', element.is_string,
                    'decoded', case when element.lexeme is not null then {{ cdc_lakehouse._cdc_decode_semantic_text(
                        'element.lexeme', 'element.is_string', column_type
                    ) }} end
                )
            )),
            elements -> case when exists(elements, e -> e.decoded is not null) then concat(
                '[',
                array_join(transform(elements, e -> case
                    when e.decoded is not null then {{ cdc_lakehouse._cdc_json_string('e.decoded') }}
                    when e.lexeme is null then 'null'
                    when e.is_string then {{ cdc_lakehouse._cdc_json_string('e.lexeme') }}
                    else e.lexeme
                end), ','),
                ']'
            ) end
        )[0]
    end
{% endmacro %}

{% macro _cdc_variable_scale_parts(lexeme) %}
    {#- The unscaled bytes and scale of an io.debezium.data.VariableScaleDecimal's JSON text. -#}
    transform(
        array(from_json({{ lexeme }}, 'struct<scale: int, value: string>')),
        variable_scale -> named_struct(
            'unscaled', try_to_binary(variable_scale.value, 'base64'),
            'scale', variable_scale.scale
        )
    )[0]
{% endmacro %}

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
