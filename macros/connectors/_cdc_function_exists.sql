{% macro _cdc_function_exists(name) %}
    {#-
        Whether the SQL function `name` is registered in the session.
        It may be a built-in or a temporary function such as the Python UDFs of python_udfs/.
        False at parse time.
    -#}
    {%- if not execute -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set found = run_query("show functions like '" ~ cdc_lakehouse._cdc_escape_string(name) ~ "'") -%}
    {{ return(found.rows | length > 0) }}
{% endmacro %}
