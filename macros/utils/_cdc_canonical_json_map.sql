{% macro _cdc_canonical_json_map(map_expression, folded=false) %}
    {#- The canonical JSON text of a map: lower-cased keys in sorted order. -#}
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
