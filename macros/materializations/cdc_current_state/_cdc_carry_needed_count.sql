{% macro _cdc_carry_needed_count(carry, readable_only) %}
  {#- The count of change rows the carry-over could change, as a SQL aggregate ('0' without one). -#}
  {%- if carry is none -%}
    {{ return('0') }}
  {%- endif -%}
  {{ return('count_if(' ~ ('_cdc_error_reason is null and ' if readable_only else '')
      ~ cdc_lakehouse._cdc_carry_needed_condition(carry) ~ ')') }}
{% endmacro %}

{% macro _cdc_carry_placeholder_count(carry, readable_only) %}
  {#- The count of change rows that hold the placeholder, as a SQL aggregate ('0' without a carry-over). -#}
  {%- if carry is none -%}
    {{ return('0') }}
  {%- endif -%}
  {{ return('count_if(' ~ ('_cdc_error_reason is null and ' if readable_only else '')
      ~ cdc_lakehouse._cdc_carry_has_placeholder(carry, '') ~ ')') }}
{% endmacro %}
