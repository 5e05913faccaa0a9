{% macro _cdc_model_fingerprint(node=none) %}
    {#- An md5 of what defines a model apart from its inputs' data. -#}
    {%- set node = node or model -%}
    {%- set parts = [node.raw_code, tojson(node.config, sort_keys=true)] -%}
    {%- for name, column in (node.columns or {}).items() | sort -%}
        {%- do parts.append(name ~ ' ' ~ (column.data_type or '') ~ ' ' ~ tojson(column.meta or {}, sort_keys=true)) -%}
    {%- endfor -%}
    {{ return(local_md5(parts | join('\n'))) }}
{% endmacro %}
