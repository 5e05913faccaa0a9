{% macro _cdc_family_case(hook, family_column, message, families) %}
    {#-
        One SQL `case` giving a hook's value for the family of each message.
        One SQL `case` over the families `families` (registered ones, e.g. those
        _cdc_present_families found): the value of `<family>__<hook>` for the family named
        in `family_column`, null for a message none of them reads. Extra arguments of the
        hook (`key`'s announced_key) are passed through `varargs`.
    -#}
    case {{ family_column }}
    {%- for family in families %}
        when '{{ family }}' then {{ cdc_lakehouse.cdc_family_hook(family, hook)(message, *varargs) }}
    {%- endfor %}
    end
{% endmacro %}
