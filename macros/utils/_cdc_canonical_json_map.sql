{% macro _cdc_canonical_json_map(map_expression, folded=false) %}
    {#-
        The canonical JSON text of a map: lower-cased keys in sorted order.
        A JSON object with lower-cased keys (but for keys that differ only by case,
        _cdc_fold_names) in sorted order, from a map<string, string>:
        the same row key gives the same text whether it came from the Kafka message key
        or from the row image. Null for a null or empty map. The map is computed once
        (`_cdc_let`). `folded`: the map's keys are folded already (_cdc_json_map's are), so
        they are only sorted: folding is idempotent, and each fold costs a row its work and
        the plan three levels of lambdas (Spark's analyser resolves one level a pass).
    -#}
    {%- set entries = 'canonical_map' if folded else cdc_lakehouse._cdc_fold_keys('canonical_map') -%}
    {%- set canonical -%}
    case
        when canonical_map is not null and size(canonical_map) > 0
            then to_json(map_from_entries(array_sort(map_entries(
                {{ entries }}
            ))))
    end
    {%- endset -%}
    {{ cdc_lakehouse._cdc_let(map_expression, 'canonical_map', canonical) }}
{% endmacro %}
