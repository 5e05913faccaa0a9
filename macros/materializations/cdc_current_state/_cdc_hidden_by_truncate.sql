{% macro _cdc_hidden_by_truncate(sort_key, truncated_before) -%}
  {#- SQL boolean: a row is hidden by its source table's truncate (or completed snapshot). -#}
  coalesce({{ sort_key }} < {{ truncated_before }}, false)
{%- endmacro %}
