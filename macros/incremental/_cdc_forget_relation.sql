{% macro _cdc_forget_relation(relation) %}
    {#-
        Forgets what this invocation cached about `relation` and its companions.
        Forget what this invocation read of `relation` and of the tables named after it (a
        cdc_current_state model's `__cdc_state` and `__cdc_delta`): its properties
        (_cdc_table_properties) and column names (_cdc_column_names). Called after every
        statement that sets properties and at the end of each of the project's
        materializations, so that no later read of this invocation sees what was replaced.
    -#}
    {%- set prefix = cdc_lakehouse._cdc_relation_key(relation) -%}
    {%- for name in ['table_properties', 'column_names'] -%}
        {%- set cache = cdc_lakehouse._cdc_invocation_cache(name) -%}
        {%- for key in cache.keys() | list if key == prefix or key.startswith(prefix ~ '__cdc_') -%}
            {%- do cache.pop(key) -%}
        {%- endfor -%}
    {%- endfor -%}
{% endmacro %}
