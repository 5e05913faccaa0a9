{% macro _cdc_fold_names(names) %}
    {#- SQL expression: column names lower-cased unless two differ only by case. -#}
    {%- set folded -%}
    case
        when size(array_distinct(transform(fold_names, n -> lower(n)))) = size(fold_names)
            then transform(fold_names, n -> lower(n))
        else transform(
                fold_names,
                n -> case when size(filter(fold_names, o -> lower(o) = lower(n))) > 1 then n else lower(n) end
            )
    end
    {%- endset -%}
    {{ cdc_lakehouse._cdc_let(names, 'fold_names', folded) }}
{% endmacro %}
