{% macro _cdc_announces_table_changes(column='message_value') %}
    {#-
        SQL boolean: the message text `column` may be a Debezium schema-change event.
        True for every message that carries `tableChanges` (the events whose announced keys
        int_cdc__schema_change_keys reads) and for few others; bronze records whether its
        new lines held one (config cdc_summary), so that model skips a run without one.
    -#}
    {{ return(column ~ " like '%\"tableChanges\"%'") }}
{% endmacro %}
