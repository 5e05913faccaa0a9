{% macro _cdc_json_overlay(base_json, overlay_json) %}
    {#- JSON object text: `base_json` with the keys of `overlay_json` set. -#}
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
    {#- The JSON text of the value of one key of a JSON object. -#}
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
