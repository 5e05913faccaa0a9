{% macro cdc_has_declared_key(source_identity) %}
    {#-
        SQL boolean: a declared key (cdc_declared_table_keys: the var `cdc_table_keys`, the
        typed row contracts' `meta.cdc_key`) matches the source `source_identity` (a struct
        expression with fields db, schema, table), so its rows are keyed by those columns,
        never by their whole image (cdc_key_from_image).
    -#}
    {%- set keys = cdc_declared_table_keys() -%}
    {%- if keys | length == 0 -%}
        false
    {%- else -%}
        ({% for entry in keys %}{{ cdc_source_matches(
            entry.source,
            source_identity ~ '.db',
            source_identity ~ '.schema',
            source_identity ~ '.table'
        ) }}{{ ' or ' if not loop.last }}{% endfor %})
    {%- endif -%}
{% endmacro %}
