{% macro _cdc_key_match(unique_key, left, right) -%}
  {#- A null-safe join condition on the key columns of two relations. -#}
  {%- set parts = [] -%}
  {%- for column in unique_key -%}
    {%- do parts.append(left ~ '.' ~ cdc_lakehouse.cdc_quote(column) ~ ' <=> ' ~ right ~ '.' ~ cdc_lakehouse.cdc_quote(column)) -%}
  {%- endfor -%}
  {{ parts | join(' and ') }}
{%- endmacro %}
