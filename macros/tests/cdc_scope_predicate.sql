{% macro cdc_scope_predicate(scope, loaded_at='_loaded_at') %}
    {#- A boolean SQL expression that keeps the rows of a cdc_test_scope: `true`, `false`,
        or `<loaded_at> > <timestamp>`. -#}
    {%- if scope.kind == 'nothing' -%}
        {{ return('false') }}
    {%- elif scope.kind == 'since' -%}
        {{ return(loaded_at ~ ' > ' ~ scope.since) }}
    {%- endif -%}
    {{ return('true') }}
{% endmacro %}
