{% macro _cdc_invocation_cache(name) %}
    {#-
        A dict that lives as long as this dbt invocation.
        It is shared by all its nodes: kept in the run's graph (the one object every node's
        context shares), under the invocation's id, so that a graph another invocation reuses
        (dbtRunner) starts without old answers.
    -#}
    {%- set caches = graph.setdefault('_cdc_invocation_caches', {}) -%}
    {%- if invocation_id not in caches -%}
        {%- do caches.clear() -%}
        {%- do caches.update({invocation_id: {}}) -%}
    {%- endif -%}
    {{ return(caches[invocation_id].setdefault(name, {})) }}
{% endmacro %}
