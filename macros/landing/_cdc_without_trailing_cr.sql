{% macro _cdc_without_trailing_cr(line_expression) %}
    {#-
        SQL: the line without its one trailing carriage return.
        SQL: the line without its one trailing '\r' (a CRLF line split on '\n'), tested with
        `endswith`, not a regular expression over every line.
    -#}
    case
        when endswith({{ line_expression }}, '\r')
            then substr({{ line_expression }}, 1, length({{ line_expression }}) - 1)
        else {{ line_expression }}
    end
{%- endmacro %}
