{% macro cdc_no_new_input() %}
    {#-
        Renders a comment that tells the project's `incremental` materialization that the
        model found nothing new to read when it was compiled (bronze: no new landing file;
        a model whose kind of rows did not arrive: cdc_has_rows),
        so that the run leaves the table as it is without a Spark job. Call it only when
        that is certain.
    -#}
    {{ return(cdc_lakehouse._cdc_no_new_input_marker()) }}
{% endmacro %}

{% macro _cdc_no_new_input_marker() %}
    {{ return('/* cdc: no new input */') }}
{% endmacro %}
