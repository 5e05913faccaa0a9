{% macro _cdc_declared_table_keys() %}
    {#- Every declared table key, in the order they are tried. -#}
    {%- set from_var = [] -%}
    {%- for name, columns in cdc_lakehouse.cdc_var('cdc_table_keys').items() -%}
        {%- set parts = (name | string).split('.') -%}
        {%- if parts | length > 3 -%}
            {{ exceptions.raise_compiler_error(
                "var cdc_table_keys: '" ~ name ~ "' is not table, database.table or "
                ~ "database.schema.table"
            ) }}
        {%- endif -%}
        {%- set source = {
            'database': parts[0] if parts | length > 1 else '*',
            'schema': parts[1] if parts | length == 3 else '*',
            'table': parts[-1],
        } -%}
        {%- do from_var.append({'source': source, 'columns': columns | map('lower') | list}) -%}
    {%- endfor -%}
    {%- set from_contracts = [] -%}
    {%- if execute -%}
        {%- for node in graph.nodes.values() | sort(attribute='name')
                if node.resource_type == 'model' -%}
            {%- set meta = node.config.meta or {} -%}
            {%- set source = cdc_lakehouse.cdc_source_contract(meta, node.name) -%}
            {%- if source is not none and meta.get('cdc_key') and not meta.get('cdc_document') -%}
                {%- do from_contracts.append({
                    'source': source, 'columns': meta['cdc_key'] | map('lower') | list
                }) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set keys = [] -%}
    {%- for group in [from_var, from_contracts] -%}
        {%- set ranked = [] -%}
        {%- for entry in group -%}
            {%- set named = [] -%}
            {%- for part in ['database', 'schema', 'table'] -%}
                {%- set value = entry.source[part] -%}
                {%- if value != '*' and value != ['*'] -%}
                    {%- do named.append(part) -%}
                {%- endif -%}
            {%- endfor -%}
            {%- do ranked.append({'rank': named | length, 'entry': entry}) -%}
        {%- endfor -%}
        {%- for item in ranked | sort(attribute='rank', reverse=true) -%}
            {%- do keys.append(item.entry) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(keys) }}
{% endmacro %}

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
