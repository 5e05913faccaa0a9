{% macro _cdc_function_exists(name) %}
    {#- Whether the SQL function `name` is registered in the session. -#}
    {%- if not execute -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set found = run_query("show functions like '" ~ cdc_lakehouse._cdc_escape_string(name) ~ "'") -%}
    {{ return(found.rows | length > 0) }}
{% endmacro %}
