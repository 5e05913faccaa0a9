{% macro cdc_new_input_since() %}
    {#-
        Where the new input of the model being run starts: a timestamp literal for its
        `_loaded_at > ...` filter, or none when the run reads every input row.
        The literal is the `_loaded_at` its table has read through (_cdc_loaded_watermark:
        normally a table property, no Spark job); none when the model is not incremental
        (cdc_is_incremental: the first build, a full refresh, a view).
    -#}
    {{ return(cdc_lakehouse._cdc_loaded_watermark(this) if cdc_lakehouse.cdc_is_incremental() else none) }}
{% endmacro %}
