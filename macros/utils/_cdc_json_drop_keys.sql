{% macro _cdc_json_drop_keys(json_expression, drop) %}
    {#- JSON object text without the keys for which `drop` holds. -#}
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
