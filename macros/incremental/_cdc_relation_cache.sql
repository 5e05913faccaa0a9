{% macro _cdc_invocation_cache(name) %}
    {#- A dict that lives as long as this dbt invocation. -#}
    {%- set caches = graph.setdefault('_cdc_invocation_caches', {}) -%}
    {%- if invocation_id not in caches -%}
        {%- do caches.clear() -%}
        {%- do caches.update({invocation_id: {}}) -%}
    {%- endif -%}
    {{ return(caches[invocation_id].setdefault(name, {})) }}
{% endmacro %}

{% macro _cdc_relation_key(relation) %}
    {#- `schema.identifier`, lower case: a relation's key in the invocation's caches. -#}
    {{ return((relation.schema ~ '.' ~ relation.identifier) | lower) }}
{% endmacro %}

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

{% macro _cdc_remember_properties(relation, values) %}
    {#- Keeps what a statement just set as table properties of `relation`. -#}
    {%- set cache = cdc_lakehouse._cdc_invocation_cache('table_properties') -%}
    {%- set key = cdc_lakehouse._cdc_relation_key(relation) -%}
    {%- if key in cache -%}
        {%- do cache[key].update(values) -%}
    {%- endif -%}
{% endmacro %}

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

{% macro _cdc_read_through(relation) %}
    {#- The `_loaded_at` through which `relation` holds everything its inputs had. -#}
    {%- if not execute or relation is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set properties = cdc_lakehouse._cdc_table_properties(relation) -%}
    {%- set read_through = properties.get('cdc.read_through') -%}
    {%- if read_through and properties.get('cdc.reading_through') == read_through
          and read_through != 'unknown' -%}
        {{ return(read_through) }}
    {%- endif -%}
    {{ return(none) }}
{% endmacro %}
