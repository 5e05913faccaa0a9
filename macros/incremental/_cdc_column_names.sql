{% macro _cdc_column_names(relation) %}
    {#- The column names of `relation`, lower case, cached for the invocation. -#}
    {%- set cache = cdc_lakehouse._cdc_invocation_cache('column_names') -%}
    {%- set key = cdc_lakehouse._cdc_relation_key(relation) -%}
    {%- if key not in cache -%}
        {%- do cache.update({key: adapter.get_columns_in_relation(relation)
              | map(attribute='name') | map('lower') | list}) -%}
    {%- endif -%}
    {{ return(cache[key]) }}
{% endmacro %}
