{% macro cdc_canonical_json_map(map_expression) %}
    {#-
        A JSON object with lower-cased keys in sorted order, from a map<string, string>:
        the same row key gives the same text whether it came from the Kafka message key
        or from the row image. Null for a null or empty map.
    -#}
    case
        when {{ map_expression }} is not null and size({{ map_expression }}) > 0
            then to_json(map_from_entries(array_sort(map_entries(
                transform_keys({{ map_expression }}, (k, v) -> lower(k))
            ))))
    end
{% endmacro %}
