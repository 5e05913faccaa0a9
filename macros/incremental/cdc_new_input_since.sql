{% macro cdc_new_input_since() -%}
    {{ return(cdc_lakehouse._cdc_loaded_watermark(this) if cdc_lakehouse.cdc_is_incremental() else none) }}
{% endmacro %}
