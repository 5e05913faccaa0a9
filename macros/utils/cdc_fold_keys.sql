{% macro cdc_fold_keys(map_expression) %}
    {#-
        The map `map_expression` (computed once, cdc_let) with its keys lower-cased,
        except keys that differ only by case, which keep their exact case
        (cdc_fold_names). Null for a null map.
    -#}
    {{ cdc_lakehouse.cdc_let(
        map_expression,
        'fold_map',
        'map_from_arrays(' ~ cdc_lakehouse.cdc_fold_names('map_keys(fold_map)') ~ ', map_values(fold_map))'
    ) }}
{% endmacro %}
