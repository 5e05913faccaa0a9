{% macro _cdc_json_string(text) %}
    {#- `text` as a JSON string literal, escaped by Spark's own JSON writer (as the change log's images are). -#}
    substr(to_json(array({{ text }})), 2, length(to_json(array({{ text }}))) - 2)
{% endmacro %}
