{% macro _cdc_require_columns(relation, column_names) %}
    {#- Stops with the remedy when an incremental table lacks a column its model writes. -#}
    {%- if relation is none or not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if cdc_lakehouse._cdc_relation_key(relation) == cdc_lakehouse._cdc_relation_key(this)
          and cdc_lakehouse._cdc_table_properties(relation).get('cdc.model_fingerprint')
              == cdc_lakehouse._cdc_model_fingerprint() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set existing = cdc_lakehouse._cdc_column_names(relation) -%}
    {%- set missing = [] -%}
    {%- for name in column_names if name | lower not in existing -%}
        {%- do missing.append(name) -%}
    {%- endfor -%}
    {%- if missing -%}
        {{ exceptions.raise_compiler_error(
            relation ~ " has no column " ~ missing | join(', ') ~ ", which its model now writes "
            ~ "(a column added by an upgrade). Rebuild it and what reads it from bronze with: "
            ~ "dbt build --full-refresh --select " ~ relation.identifier ~ "+"
        ) }}
    {%- endif -%}
{% endmacro %}
