{% macro _cdc_json_map(json_expression) %}
    {#-
        A JSON object's text parsed to map<string, string> with folded keys.
        A JSON object's text parsed to map<string, string> with lower-cased keys; keys
        that differ only by case keep their exact case (_cdc_fold_names).
    -#}
    {{ cdc_lakehouse._cdc_fold_keys("from_json(" ~ json_expression ~ ", 'map<string, string>')") }}
{% endmacro %}
