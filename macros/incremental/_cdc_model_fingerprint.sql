{% macro _cdc_model_fingerprint(node=none) %}
    {#-
        An md5 of what defines a model apart from its inputs' data.
        It covers its SQL (before rendering), its config (materialization, keys, delete mode,
        meta, ...) and its column contract (names, data types, meta). A run may leave a model as
        it is only when this is the one its last build recorded.
    -#}
    {%- set node = node or model -%}
    {%- set parts = [node.raw_code, tojson(node.config, sort_keys=true)] -%}
    {%- for name, column in (node.columns or {}).items() | sort -%}
        {%- do parts.append(name ~ ' ' ~ (column.data_type or '') ~ ' ' ~ tojson(column.meta or {}, sort_keys=true)) -%}
    {%- endfor -%}
    {{ return(local_md5(parts | join('\n'))) }}
{% endmacro %}
