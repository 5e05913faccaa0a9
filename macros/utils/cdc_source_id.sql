{% macro cdc_source_id(connector, db, schema, table) -%}
    {%- set parts = [] -%}
    {%- for part in [schema, table] -%}
        {%- set quoted = "concat('\"', replace(" ~ part ~ ", '\"', '\"\"'), '\"')" -%}
        {%- do parts.append(
            'case when (' ~ connector ~ " in ('oracle', 'db2') and " ~ part ~ ' != upper(' ~ part ~ '))'
            ~ ' or (' ~ connector ~ " = 'postgresql' and " ~ part ~ ' != lower(' ~ part ~ '))'
            ~ ' then ' ~ quoted ~ ' else lower(' ~ part ~ ') end'
        ) -%}
    {%- endfor -%}
    concat_ws('.', lower({{ db }}), {{ parts | join(', ') }})
{% endmacro %}
