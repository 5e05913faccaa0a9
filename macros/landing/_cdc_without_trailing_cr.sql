{% macro _cdc_without_trailing_cr(line_expression) %}
    {#- SQL: the line without its one trailing carriage return. -#}
    case
        when endswith({{ line_expression }}, '\r')
            then substr({{ line_expression }}, 1, length({{ line_expression }}) - 1)
        else {{ line_expression }}
    end
{%- endmacro %}
