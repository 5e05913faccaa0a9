{% macro _cdc_fold_names(names) %}
    {#-
        SQL expression: column names lower-cased unless two differ only by case.
        SQL expression: the array of column names `names` (an array<string> expression,
        computed once, _cdc_let) with every name lower-cased, except names that another name
        of the array differs from only by case (`Name`, `NAME`): those keep their exact
        case, so two distinct columns never become one. The quadratic comparison runs only
        for an array that has such names.
    -#}
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
