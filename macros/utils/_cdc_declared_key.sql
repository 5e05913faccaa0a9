{% macro _cdc_declared_key(source_identity) %}
    {#-
        SQL expression: the declared key columns of a source table, or null.
        SQL expression (array<string>): the key columns, lower-case and sorted, of the
        first declared key (_cdc_declared_table_keys: the var `cdc_table_keys`, the typed
        row contracts' `meta.cdc_key`) whose source matches `source_identity` (a struct
        expression with fields db, schema, table); null when none matches. stg_cdc__messages
        evaluates it once per message (`declared_key`), and every family's key hook reads
        that column (cdc_key_from_image): the plan holds the declared keys once, however
        many hooks read them.
    -#}
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
