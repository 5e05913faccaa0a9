{% macro _cdc_declared_key(source_identity) %}
    {#- SQL expression: the declared key columns of a source table, or null. -#}
    {%- set keys = cdc_lakehouse._cdc_declared_table_keys() -%}
    {%- if keys | length == 0 -%}
        cast(null as array<string>)
    {%- else -%}
        case
        {%- for entry in keys %}
            when {{ cdc_lakehouse.cdc_source_matches(
                entry.source,
                source_identity ~ '.db',
                source_identity ~ '.schema',
                source_identity ~ '.table'
            ) }} then array({% for column in entry.columns | sort %}'{{ cdc_lakehouse._cdc_escape_string(column) }}'{{ ', ' if not loop.last }}{% endfor %})
        {%- endfor %}
        end
    {%- endif -%}
{% endmacro %}
