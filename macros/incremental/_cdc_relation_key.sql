{% macro _cdc_relation_key(relation) %}
    {#- `schema.identifier`, lower case: a relation's key in the invocation's caches. -#}
    {{ return((relation.schema ~ '.' ~ relation.identifier) | lower) }}
{% endmacro %}
