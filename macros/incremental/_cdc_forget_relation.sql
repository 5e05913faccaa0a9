{% macro _cdc_forget_relation(relation, companions=true, caches=['table_properties', 'column_names']) %}
    {#- Forgets what this invocation cached about `relation` and its companions. -#}
    {%- set prefix = cdc_lakehouse._cdc_relation_key(relation) -%}
    {%- for name in caches -%}
        {%- set cache = cdc_lakehouse._cdc_invocation_cache(name) -%}
        {%- for key in cache.keys() | list if key == prefix or (companions and key.startswith(prefix ~ '__cdc_')) -%}
            {%- do cache.pop(key) -%}
        {%- endfor -%}
    {%- endfor -%}
{% endmacro %}
