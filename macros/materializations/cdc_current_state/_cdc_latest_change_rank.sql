{% macro _cdc_latest_change_rank(key_columns, is_deleted='_cdc_is_deleted') -%}
  {#- A rank over a key's changes whose 1 is the latest change. -#}
  row_number() over (
      partition by {{ cdc_lakehouse._cdc_quote_list(key_columns) }}
      order by _cdc_sort_key desc, {{ is_deleted }} desc
  )
{%- endmacro %}
