{% macro _cdc_broadcast_row_limit() %}
    {#- Up to this many rows, a batch's keys are broadcast to a join (tens of MB at most). -#}
    {{ return(500000) }}
{% endmacro %}
