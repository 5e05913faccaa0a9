{% macro _cdc_table_properties(relation) %}
    {#- Every table property of `relation` as a dict (one metastore call, no Spark job). -#}
    {%- set properties = {} -%}
    {%- for row in run_query('show tblproperties ' ~ relation).rows -%}
        {%- do properties.update({row[0]: row[1]}) -%}
    {%- endfor -%}
    {{ return(properties) }}
{% endmacro %}
