{% macro cdc_json_map(json_expression) %}
    {#- A JSON object's text parsed to map<string, string> with lower-cased keys. -#}
    transform_keys(from_json({{ json_expression }}, 'map<string, string>'), (k, v) -> lower(k))
{% endmacro %}
