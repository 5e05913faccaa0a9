{% macro _cdc_data_collection_matches(qualified_name, data_collection) %}
    {#- SQL boolean: a transaction END's `data_collection` names the event's table. -#}
    ({{ qualified_name }} = {{ data_collection }}
        or {{ qualified_name }} like concat('%.', {{ data_collection }}))
{%- endmacro %}
