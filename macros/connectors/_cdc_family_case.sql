{% macro _cdc_family_case(hook, family_column, message, families) %}
    {#- One SQL `case` giving a hook's value for the family of each message. -#}
    case {{ family_column }}
    {%- for family in families %}
        when '{{ family }}' then {{ cdc_lakehouse.cdc_family_hook(family, hook)(message, *varargs) }}
    {%- endfor %}
    end
{% endmacro %}
