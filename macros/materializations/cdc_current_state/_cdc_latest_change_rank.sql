{% macro _cdc_latest_change_rank(key_columns, is_deleted='_cdc_is_deleted') -%}
  {#-
      A rank over a key's changes whose 1 is the latest change.
      Rank 1 is the latest change of a key: the highest _cdc_sort_key (source order, then
      arrival); of two copies at the same sort key, a delete wins over the row it removes.
  -#}
  row_number() over (
      partition by {{ cdc_lakehouse._cdc_quote_list(key_columns) }}
      order by _cdc_sort_key desc, {{ is_deleted }} desc
  )
{%- endmacro %}
