{% macro _cdc_invocation_cache(name) %}
    {#- A dict that lives as long as this dbt invocation. -#}
    {%- set caches = graph.setdefault('_cdc_invocation_caches', {}) -%}
    {%- if invocation_id not in caches -%}
        {%- do caches.clear() -%}
        {%- do caches.update({invocation_id: {}}) -%}
    {%- endif -%}
    {{ return(caches[invocation_id].setdefault(name, {})) }}
{% endmacro %}
