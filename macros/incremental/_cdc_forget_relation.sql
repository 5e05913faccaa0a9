{% macro _cdc_forget_relation(relation, companions=true, caches=['table_properties', 'column_names']) %}
    {#-
        Forgets what this invocation cached about `relation` and its companions.
        Forget what this invocation read of `relation` and, with `companions`, of the tables
        named after it (a cdc_current_state model's `__cdc_state`): its properties
        (_cdc_table_properties) and column names (_cdc_column_names). Called after every
        statement that replaces a relation (drop and create, a changed schema), so that no
        later read of this invocation sees what was replaced; a statement that only sets
        properties keeps them instead (_cdc_remember_properties). `caches`: what to forget
        (a changed schema leaves the properties as they were).
    -#}
    {%- set prefix = cdc_lakehouse._cdc_relation_key(relation) -%}
    {%- for name in caches -%}
        {%- set cache = cdc_lakehouse._cdc_invocation_cache(name) -%}
        {%- for key in cache.keys() | list if key == prefix or (companions and key.startswith(prefix ~ '__cdc_')) -%}
            {%- do cache.pop(key) -%}
        {%- endfor -%}
    {%- endfor -%}
{% endmacro %}
