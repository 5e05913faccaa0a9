{% macro _cdc_remember_properties(relation, values) %}
    {#- Keeps what a statement just set as table properties of `relation`. -#}
    {%- set cache = cdc_lakehouse._cdc_invocation_cache('table_properties') -%}
    {%- set key = cdc_lakehouse._cdc_relation_key(relation) -%}
    {%- if key in cache -%}
        {%- do cache[key].update(values) -%}
    {%- endif -%}
{% endmacro %}
