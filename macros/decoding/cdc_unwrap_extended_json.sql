{% macro cdc_unwrap_extended_json(raw) -%}
    case
        when {{ raw }} like '{"$%' or {{ raw }} like '{ "$%' then coalesce(
            get_json_object({{ raw }}, '$[\'$oid\']'),
            get_json_object({{ raw }}, '$[\'$numberInt\']'),
            get_json_object({{ raw }}, '$[\'$numberLong\']'),
            get_json_object({{ raw }}, '$[\'$numberDouble\']'),
            get_json_object({{ raw }}, '$[\'$numberDecimal\']'),
            date_format(
                timestamp_millis(try_cast(coalesce(
                    get_json_object({{ raw }}, '$[\'$date\'][\'$numberLong\']'),
                    case
                        when get_json_object({{ raw }}, '$[\'$date\']') rlike '^-?[0-9]+$'
                            then get_json_object({{ raw }}, '$[\'$date\']')
                    end
                ) as bigint)),
                'yyyy-MM-dd\'T\'HH:mm:ss.SSS\'Z\''
            ),
            get_json_object({{ raw }}, '$[\'$date\']'),
            get_json_object({{ raw }}, '$[\'$binary\'][\'base64\']'),
            case
                when not startswith(get_json_object({{ raw }}, '$[\'$binary\']'), '{')
                    then get_json_object({{ raw }}, '$[\'$binary\']')
            end,
            get_json_object({{ raw }}, '$[\'$timestamp\'][\'t\']'),
            {{ raw }}
        )
        else {{ raw }}
    end
{% endmacro %}
