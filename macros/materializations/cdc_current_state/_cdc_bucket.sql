{% macro _cdc_bucket(key_columns, buckets, prefix='') -%}
  {#- The key-hash bucket (state partition 0 .. buckets-1) of a key, for every write path. -#}
  pmod(xxhash64({{ cdc_lakehouse._cdc_quote_list(key_columns, prefix) }}), {{ buckets }})
{%- endmacro %}
