{% macro cdc_json_overlay(base_json, overlay_json) %}
    {#-
        JSON object text: `base_json` with each key of `overlay_json` set to the overlay's
        value (a key the base lacks is added; a key the overlay carries as null becomes
        null; a key it does not carry is unchanged). Values keep the text they arrived in
        (1.0 stays 1.0, "1" stays a string). `base_json` when the overlay is null.
    -#}
    case
        when {{ overlay_json }} is null or {{ base_json }} is null then {{ base_json }}
        else concat('{', array_join(transform(
            array_distinct(concat(
                map_keys(from_json({{ base_json }}, 'map<string, string>')),
                map_keys(from_json({{ overlay_json }}, 'map<string, string>'))
            )),
            overlay_column -> concat(
                substr(to_json(array(overlay_column)), 2, length(to_json(array(overlay_column))) - 2),
                ':',
                case
                    when map_contains_key(from_json({{ overlay_json }}, 'map<string, string>'), overlay_column)
                        then {{ _cdc_json_raw_value(overlay_json, 'overlay_column') }}
                    else {{ _cdc_json_raw_value(base_json, 'overlay_column') }}
                end
            )
        ), ','), '}')
    end
{% endmacro %}

{% macro _cdc_json_raw_value(json, name) %}
    {#- The JSON text of the value of key `name` in the object `json` (`null` when absent or null). -#}
    case
        when from_json({{ json }}, 'map<string, string>')[{{ name }}] is null then 'null'
        when schema_of_variant(from_json({{ json }}, 'map<string, variant>')[{{ name }}]) = 'STRING'
            then substr(
                to_json(array(from_json({{ json }}, 'map<string, string>')[{{ name }}])),
                2,
                length(to_json(array(from_json({{ json }}, 'map<string, string>')[{{ name }}]))) - 2
            )
        else from_json({{ json }}, 'map<string, string>')[{{ name }}]
    end
{% endmacro %}
