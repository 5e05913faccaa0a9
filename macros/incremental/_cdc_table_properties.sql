{% macro _cdc_table_properties(relation) %}
    {#-
        Every table property of `relation` as a dict, cached for the invocation.
        Every table property of `relation` as a dict: one metastore call per relation and
        invocation (the answers are kept in _cdc_invocation_cache until a write of the
        relation forgets them, _cdc_forget_relation).
    -#}
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
