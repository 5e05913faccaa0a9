{% macro _cdc_json_drop_keys(json_expression, drop) %}
    {#-
        JSON object text without the keys for which `drop` holds.
        JSON object text: `json_expression` without the keys for which `drop` holds, the
        other values keeping the text they arrived in (as in _cdc_json_overlay); the text
        itself when no key is dropped, null for null. `drop` is a SQL boolean over
        `json_key` (a key of the object) and `json_values` (the object parsed to
        map<string, string>).
    -#}
    {%- set rebuilt -%}
        case
            when not exists(map_keys(json_values), json_key -> {{ drop }}) then {{ json_expression }}
            else concat('{', array_join(transform(
                filter(map_keys(json_values), json_key -> not ({{ drop }})),
                json_key -> concat(
                    substr(to_json(array(json_key)), 2, length(to_json(array(json_key))) - 2),
                    ':',
                    {{ cdc_lakehouse._cdc_json_raw_value('json_values', 'json_variants', 'json_key') }}
                )
            ), ','), '}')
        end
    {%- endset -%}
    case
        when {{ json_expression }} is not null
            then {{ cdc_lakehouse._cdc_let(
                "from_json(" ~ json_expression ~ ", 'map<string, string>')",
                'json_values',
                cdc_lakehouse._cdc_let("from_json(" ~ json_expression ~ ", 'map<string, variant>')", 'json_variants', rebuilt)
            ) }}
    end
{% endmacro %}
