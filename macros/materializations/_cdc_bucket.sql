{% macro _cdc_bucket(key_columns, buckets) -%}
  {#- The key-hash bucket (state partition 0 .. buckets-1) of a key: one rule for every
      write path, so a key is always found in the bucket it was written to. -#}
  pmod(xxhash64({{ key_columns | join(', ') }}), {{ buckets }})
{%- endmacro %}
