{% macro _cdc_announces_table_changes(column='message_value') %}
    {#- SQL boolean: the message text `column` may be a Debezium schema-change event. -#}
    {{ return(column ~ " like '%\"tableChanges\"%'") }}
{% endmacro %}
