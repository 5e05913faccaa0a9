{% macro cdc_quote(name) %}
    {#-
        `name` (a column name as the source or the contract carries it) as one quoted
        identifier: the adapter's quoting (adapter.quote, backticks on Spark) with the quote
        character doubled inside it, so spaces, reserved words, quotes, backticks,
        semicolons, `--` or Jinja braces in a name stay part of the name, never SQL.
    -#}
    {%- set quote_character = adapter.quote('')[0] -%}
    {{- return(adapter.quote((name | string).replace(quote_character, quote_character ~ quote_character))) -}}
{% endmacro %}
