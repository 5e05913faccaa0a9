{% macro cdc_source_contract(meta, model_name='') -%}
    {%- set meta = meta or {} -%}
    {%- set parts = ['database', 'schema', 'table'] -%}
    {%- set legacy = {
        'database': meta.get('cdc_source_database'),
        'schema': meta.get('cdc_source_schema'),
        'table': meta.get('cdc_source_table'),
    } -%}
    {%- set source = meta.get('cdc_source') -%}
    {%- if source is none -%}
        {%- if not legacy['table'] -%}
            {{ return(none) }}
        {%- endif -%}
        {%- set source = legacy -%}
    {%- else -%}
        {%- if source is not mapping
                or source.keys() | reject('in', parts) | list
                or not source.get('table') -%}
            {{ exceptions.raise_compiler_error(
                "Model " ~ model_name ~ ": config.meta.cdc_source must be a mapping with "
                ~ "`table` and optional `database` and `schema` (glob patterns), got "
                ~ source
            ) }}
        {%- endif -%}
        {%- if legacy.values() | select | list -%}
            {{ exceptions.raise_compiler_error(
                "Model " ~ model_name ~ ": config.meta has both cdc_source and "
                ~ "cdc_source_table/cdc_source_schema/cdc_source_database: keep cdc_source."
            ) }}
        {%- endif -%}
    {%- endif -%}
    {%- set contract = {} -%}
    {%- for part in parts -%}
        {%- set value = source.get(part) -%}
        {%- set patterns = ['*'] if value is none or value == '' else (
            [value] if value is string else value | list
        ) -%}
        {%- if patterns | length == 0 or patterns | reject('string') | list -%}
            {{ exceptions.raise_compiler_error(
                "Model " ~ model_name ~ ": cdc_source." ~ part ~ " must be a pattern or a "
                ~ "non-empty list of patterns, got " ~ value
            ) }}
        {%- endif -%}
        {%- do contract.update({part: patterns}) -%}
    {%- endfor -%}
    {{ return(contract) }}
{% endmacro %}
