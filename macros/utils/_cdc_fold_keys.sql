{% macro _cdc_fold_keys(map_expression) %}
    {#-
        A map with its keys lower-cased unless two differ only by case.
        The map `map_expression` (computed once, _cdc_let) with its keys lower-cased,
        except keys that differ only by case, which keep their exact case
        (_cdc_fold_names). Null for a null map.
    -#}
    {{ cdc_lakehouse._cdc_let(
        map_expression,
        'fold_map',
        'map_from_arrays(' ~ cdc_lakehouse._cdc_fold_names('map_keys(fold_map)') ~ ', map_values(fold_map))'
    ) }}
{% endmacro %}
