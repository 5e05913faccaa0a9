{% macro _cdc_fold_keys(map_expression) %}
    {#- A map with its keys lower-cased unless two differ only by case. -#}
    {{ cdc_lakehouse._cdc_let(
        map_expression,
        'fold_map',
        'map_from_arrays(' ~ cdc_lakehouse._cdc_fold_names('map_keys(fold_map)') ~ ', map_values(fold_map))'
    ) }}
{% endmacro %}
