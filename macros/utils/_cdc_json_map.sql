{% macro _cdc_json_map(json_expression) %}
    {#- A JSON object's text parsed to map<string, string> with folded keys. -#}
    {{ cdc_lakehouse._cdc_fold_keys("from_json(" ~ json_expression ~ ", 'map<string, string>')") }}
{% endmacro %}

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

{% macro _cdc_fold_keys(map_expression) %}
    {#- A map with its keys lower-cased unless two differ only by case. -#}
    {{ cdc_lakehouse._cdc_let(
        map_expression,
        'fold_map',
        'map_from_arrays(' ~ cdc_lakehouse._cdc_fold_names('map_keys(fold_map)') ~ ', map_values(fold_map))'
    ) }}
{% endmacro %}

{% macro _cdc_fold_names(names) %}
    {#- SQL expression: column names lower-cased unless two differ only by case. -#}
    {%- set folded -%}
    case
        when size(array_distinct(transform(fold_names, n -> lower(n)))) = size(fold_names)
            then transform(fold_names, n -> lower(n))
        else transform(
                fold_names,
                n -> case when size(filter(fold_names, o -> lower(o) = lower(n))) > 1 then n else lower(n) end
            )
    end
    {%- endset -%}
    {{ cdc_lakehouse._cdc_let(names, 'fold_names', folded) }}
{% endmacro %}

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
