{% macro _cdc_table_property(relation, key) %}
    {#- The value of table property `key` of `relation`, or none when it has none. -#}
    {%- for row in run_query('show tblproperties ' ~ relation).rows -%}
        {%- if row[0] == key -%}
            {{ return(row[1]) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}
