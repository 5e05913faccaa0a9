{% macro _cdc_rows_through(relation, kinds=none) %}
    {#- Through which `_loaded_at` a table may hold rows of the given kinds. -#}
    {%- set read_through = cdc_lakehouse._cdc_read_through(relation) -%}
    {%- if read_through is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set properties = cdc_lakehouse._cdc_table_properties(relation) -%}
    {%- set tracked = (properties.get('cdc.summary.kinds') or '').split(',') -%}
    {%- if kinds and properties.get('cdc.summary.kinds')
          and kinds | reject('in', tracked) | list | length == 0 -%}
        {%- set values = [] -%}
        {%- for kind in kinds -%}
            {%- set value = properties.get('cdc.summary.' ~ kind) or 'none' -%}
            {%- do values.append('' if value == 'none' else value) -%}
        {%- endfor -%}
        {{ return(values | max) }}
    {%- endif -%}
    {{ return(properties.get('cdc.rows_through') or read_through) }}
{% endmacro %}
