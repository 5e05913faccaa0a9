{% macro cdc_family_case(hook, family_column, message) %}
    {#-
        One SQL `case` over the registered families: the value of `<family>__<hook>` for
        the family named in `family_column`, null for a message no family reads. Extra
        arguments of the hook (`key`'s announced_key) are passed through `varargs`.
    -#}
    case {{ family_column }}
    {%- for family in cdc_connector_families() %}
        when '{{ family }}' then {{ cdc_family_hook(family, hook)(message, *varargs) }}
    {%- endfor %}
    end
{% endmacro %}
