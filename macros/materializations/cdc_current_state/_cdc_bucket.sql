{% macro _cdc_bucket(key_columns, buckets, prefix='') -%}
  {#-
      The key-hash bucket (state partition) of a key.
      The key-hash bucket (state partition 0 .. buckets-1) of a key: one rule for every
      write path, so a key is always found in the bucket it was written to.
      key_columns are column names, quoted here (cdc_quote), qualified by prefix.
  -#}
  pmod(xxhash64({{ cdc_lakehouse._cdc_quote_list(key_columns, prefix) }}), {{ buckets }})
{%- endmacro %}
