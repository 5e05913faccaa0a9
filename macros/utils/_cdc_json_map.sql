{% macro _cdc_json_map(json_expression) %}
    {#- A JSON object's text parsed to map<string, string> with folded keys. -#}
    {{ cdc_lakehouse._cdc_fold_keys("from_json(" ~ json_expression ~ ", 'map<string, string>')") }}
{% endmacro %}
