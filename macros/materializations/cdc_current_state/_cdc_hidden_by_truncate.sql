{% macro _cdc_hidden_by_truncate(sort_key, truncated_before) -%}
  {#-
      SQL boolean: a row is hidden by its source table's truncate.
      A row is hidden (deleted) by its source table's truncate when it sorts before the
      truncate; no truncate hides nothing. A completed snapshot of the table, under
      cdc_snapshot_reconciliation, is such a truncate at its start (_cdc_snapshot_markers).
  -#}
  coalesce({{ sort_key }} < {{ truncated_before }}, false)
{%- endmacro %}
