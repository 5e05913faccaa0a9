{% macro _cdc_remember_properties(relation, values) %}
    {#-
        Keeps what a statement just set as table properties of `relation`.
        `values` (a dict) is merged into this invocation's cached properties of `relation`
        (_cdc_table_properties) when they are known: the run already has the answer, and
        the next read asks Spark nothing. When they are not known, nothing is kept: the next
        read asks once. A statement that replaces the relation (drop and create) forgets it
        instead (_cdc_forget_relation).
    -#}
    {%- set cache = cdc_lakehouse._cdc_invocation_cache('table_properties') -%}
    {%- set key = cdc_lakehouse._cdc_relation_key(relation) -%}
    {%- if key in cache -%}
        {%- do cache[key].update(values) -%}
    {%- endif -%}
{% endmacro %}
