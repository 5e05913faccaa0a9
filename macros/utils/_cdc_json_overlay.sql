{% macro _cdc_json_overlay(base_json, overlay_json) %}
    {#-
        JSON object text: `base_json` with the keys of `overlay_json` set.
        JSON object text: `base_json` with each key of `overlay_json` set to the overlay's
        value (a key the base lacks is added; a key the overlay carries as null becomes
        null; a key it does not carry is unchanged). Values keep the text they arrived in
        (1.0 stays 1.0, "1" stays a string). `base_json` when the overlay is null. Each side
        is parsed once per row: the parsed maps are bound to a lambda variable (`parsed`)
        rather than repeated, which keeps the expression, and Spark's plan, small.
    -#}
    case
        when {{ overlay_json }} is null or {{ base_json }} is null then {{ base_json }}
        else element_at(transform(
            array(named_struct(
                'base', from_json({{ base_json }}, 'map<string, string>'),
                'base_variant', from_json({{ base_json }}, 'map<string, variant>'),
                'overlay', from_json({{ overlay_json }}, 'map<string, string>'),
                'overlay_variant', from_json({{ overlay_json }}, 'map<string, variant>')
            )),
            parsed -> concat('{', array_join(transform(
                array_distinct(concat(map_keys(parsed.base), map_keys(parsed.overlay))),
                overlay_column -> concat(
                    substr(to_json(array(overlay_column)), 2, length(to_json(array(overlay_column))) - 2),
                    ':',
                    case
                        when map_contains_key(parsed.overlay, overlay_column)
                            then {{ cdc_lakehouse._cdc_json_raw_value('parsed.overlay', 'parsed.overlay_variant', 'overlay_column') }}
                        else {{ cdc_lakehouse._cdc_json_raw_value('parsed.base', 'parsed.base_variant', 'overlay_column') }}
                    end
                )
            ), ','), '}')
        ), 1)
    end
{% endmacro %}

{% macro _cdc_json_raw_value(values, variants, name) %}
    {#-
        The JSON text of the value of one key of a JSON object.
        The JSON text of the value of key `name` of a JSON object parsed as `values`
        (map<string, string>) and `variants` (map<string, variant>): `null` when absent or
        null, a string quoted and escaped, anything else as carried.
    -#}
    case
        when {{ values }}[{{ name }}] is null then 'null'
        when schema_of_variant({{ variants }}[{{ name }}]) = 'STRING'
            then substr(
                to_json(array({{ values }}[{{ name }}])),
                2,
                length(to_json(array({{ values }}[{{ name }}]))) - 2
            )
        else {{ values }}[{{ name }}]
    end
{% endmacro %}
