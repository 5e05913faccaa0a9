{% macro cdc_source_matches(contract, db_column, schema_column, table_column) %}
    {#-
        SQL boolean: does the source identity (db, schema, table expressions) match the
        contract (cdc_source_contract: {database, schema, table}, each a glob pattern or a
        list of them)? Case-insensitive; `*` is any run of characters, `?` one character,
        every other character is literal (`%` and `_` too). A part that is `*` matches
        anything, null included; any other pattern never matches a null part (Canal,
        Maxwell, MySQL and MongoDB sources have no schema).
    -#}
    {%- set tests = [] -%}
    {%- for part, column in [
        ('database', db_column), ('schema', schema_column), ('table', table_column)
    ] -%}
        {%- set value = contract.get(part, '*') -%}
        {%- set patterns = [value] if value is string else value | list -%}
        {%- if '*' not in patterns -%}
            {%- set alternatives = [] -%}
            {%- for pattern in patterns | map('lower') -%}
                {%- if '*' in pattern or '?' in pattern -%}
                    {%- set like = pattern.replace('\\', '\\\\').replace('%', '\\%').replace('_', '\\_')
                        .replace('*', '%').replace('?', '_') -%}
                    {%- do alternatives.append(
                        'lower(' ~ column ~ ") like '" ~ cdc_escape_string(like) ~ "'"
                    ) -%}
                {%- else -%}
                    {%- do alternatives.append(
                        'lower(' ~ column ~ ") = '" ~ cdc_escape_string(pattern) ~ "'"
                    ) -%}
                {%- endif -%}
            {%- endfor -%}
            {%- do tests.append(
                'coalesce(' ~ (alternatives | join(' or ') if alternatives else 'false') ~ ', false)'
            ) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- '(' ~ (tests | join(' and ') if tests else 'true') ~ ')' -}}
{% endmacro %}
