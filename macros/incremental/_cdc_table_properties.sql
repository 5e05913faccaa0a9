{% macro _cdc_table_properties(relation) %}
    {#- Every table property of `relation` as a dict, cached for the invocation. -#}
    {%- set cache = cdc_lakehouse._cdc_invocation_cache('table_properties') -%}
    {%- set key = cdc_lakehouse._cdc_relation_key(relation) -%}
    {%- if key in cache -%}
        {{ return(cache[key]) }}
    {%- endif -%}
    {%- set properties = {} -%}
    {%- for row in run_query('show tblproperties ' ~ relation).rows -%}
        {%- do properties.update({row[0]: row[1]}) -%}
    {%- endfor -%}
    {%- do cache.update({key: properties}) -%}
    {{ return(properties) }}
{% endmacro %}
