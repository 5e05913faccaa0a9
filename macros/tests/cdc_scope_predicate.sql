{% macro cdc_scope_predicate(scope, loaded_at='_loaded_at') -%}
    {%- if scope.kind == 'nothing' -%}
        {{ return('false') }}
    {%- elif scope.kind == 'since' -%}
        {{ return(loaded_at ~ ' > ' ~ scope.since) }}
    {%- endif -%}
    {{ return('true') }}
{% endmacro %}
