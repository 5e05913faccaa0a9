{% macro cdc_canonical_json_map(map_expression) %}
    {#-
        A JSON object with lower-cased keys (but for keys that differ only by case,
        cdc_fold_names) in sorted order, from a map<string, string>:
        the same row key gives the same text whether it came from the Kafka message key
        or from the row image. Null for a null or empty map. The map is computed once
        (`cdc_let`).
    -#}
    {%- set canonical -%}
    case
        when canonical_map is not null and size(canonical_map) > 0
            then to_json(map_from_entries(array_sort(map_entries(
                {{ cdc_lakehouse.cdc_fold_keys('canonical_map') }}
            ))))
    end
    {%- endset -%}
    {{ cdc_lakehouse.cdc_let(map_expression, 'canonical_map', canonical) }}
{% endmacro %}
