{% macro cdc_source_matches(contract, db_column, schema_column, table_column) -%}
    {%- set tests = [] -%}
    {%- for part, column in [
        ('database', db_column), ('schema', schema_column), ('table', table_column)
    ] -%}
        {%- set value = contract.get(part, '*') -%}
        {%- set patterns = [value] if value is string else value | list -%}
        {%- if '*' not in patterns -%}
            {%- set alternatives = [] -%}
            {%- for raw_pattern in patterns -%}
                {%- set exact = raw_pattern | length > 1 and raw_pattern.startswith('"')
                    and raw_pattern.endswith('"') -%}
                {%- set pattern = raw_pattern[1:-1] if exact else raw_pattern | lower -%}
                {%- set subject = column if exact else 'lower(' ~ column ~ ')' -%}
                {%- if '*' in pattern or '?' in pattern -%}
                    {%- set like = pattern.replace('\\', '\\\\').replace('%', '\\%').replace('_', '\\_')
                        .replace('*', '%').replace('?', '_') -%}
                    {%- do alternatives.append(
                        subject ~ " like '" ~ cdc_lakehouse._cdc_escape_string(like) ~ "'"
                    ) -%}
                {%- else -%}
                    {%- do alternatives.append(
                        subject ~ " = '" ~ cdc_lakehouse._cdc_escape_string(pattern) ~ "'"
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
