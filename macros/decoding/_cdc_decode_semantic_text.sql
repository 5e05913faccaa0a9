{% macro _cdc_decode_semantic_text(lexeme, is_string, column_type) %}
    {#-
        The decoded text of one row-image value of a known semantic type.
        The decoded text of one row-image value whose message schema names its semantic
        type (`column_type`: struct<type, name, scale, precision>), or null when the type
        is not one _cdc_decodable_semantic_names lists or the value does not have that
        type's shape (it is then kept as sent):
          org.apache.kafka.connect.data.Decimal (base64 string, `scale`) and
          io.debezium.data.VariableScaleDecimal ({"scale", "value"}) -> exact decimal text;
          ...time.Date / connect Date (days) -> yyyy-MM-dd;
          ...time.Time / connect Time (ms), MicroTime, NanoTime -> [-]HH:mm:ss.fff /
          .ffffff / .fffffffff (a MySQL TIME: negative, or past 24 hours);
          ...time.Timestamp / connect Timestamp (ms), MicroTimestamp, NanoTimestamp ->
          yyyy-MM-ddTHH:mm:ss.fff / .ffffff / .fffffffff, a local date-time (no zone).
        Computed from integers only, so the session time zone plays no part.
    -#}
    {%- set whole = "(not " ~ is_string ~ " and " ~ lexeme ~ " rlike '^-?[0-9]+$')" -%}
    {%- set integer = "try_cast(" ~ lexeme ~ " as bigint)" -%}
    case {{ column_type }}.name
        when 'org.apache.kafka.connect.data.Decimal' then case when {{ is_string }} then
            {{ cdc_lakehouse._cdc_decimal_text(
                cdc_lakehouse._cdc_decode_unscaled("try_to_binary(" ~ lexeme ~ ", 'base64')"),
                "coalesce(try_cast(" ~ column_type ~ ".scale as int), 0)"
            ) }} end
        when 'io.debezium.data.VariableScaleDecimal' then case when not {{ is_string }} then
            {{ cdc_lakehouse._cdc_variable_scale_decimal_text(lexeme) }} end
        when 'io.debezium.time.Date' then case when {{ whole }} then
            cast(date_from_unix_date(try_cast({{ lexeme }} as int)) as string) end
        when 'org.apache.kafka.connect.data.Date' then case when {{ whole }} then
            cast(date_from_unix_date(try_cast({{ lexeme }} as int)) as string) end
        when 'io.debezium.time.Time' then case when {{ whole }} then {{ cdc_lakehouse._cdc_iso_time_text(integer, 3) }} end
        when 'org.apache.kafka.connect.data.Time' then case when {{ whole }} then {{ cdc_lakehouse._cdc_iso_time_text(integer, 3) }} end
        when 'io.debezium.time.MicroTime' then case when {{ whole }} then {{ cdc_lakehouse._cdc_iso_time_text(integer, 6) }} end
        when 'io.debezium.time.NanoTime' then case when {{ whole }} then {{ cdc_lakehouse._cdc_iso_time_text(integer, 9) }} end
        when 'io.debezium.time.Timestamp' then case when {{ whole }} then
            {{ cdc_lakehouse._cdc_iso_local_datetime_text(integer, 3) }} end
        when 'org.apache.kafka.connect.data.Timestamp' then case when {{ whole }} then
            {{ cdc_lakehouse._cdc_iso_local_datetime_text(integer, 3) }} end
        when 'io.debezium.time.MicroTimestamp' then case when {{ whole }} then
            {{ cdc_lakehouse._cdc_iso_local_datetime_text(integer, 6) }} end
        when 'io.debezium.time.NanoTimestamp' then case when {{ whole }} then
            {{ cdc_lakehouse._cdc_iso_local_datetime_text(integer, 9) }} end
    end
{% endmacro %}
