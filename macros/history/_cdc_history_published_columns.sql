{% macro _cdc_history_published_columns(key_columns, value_columns) %}
    {#- The select list of a history's published versions. -#}
    {%- set columns = [] -%}
    {%- for column in ['_cdc_source_id'] + key_columns + value_columns + ['_cdc_op'] -%}
        {%- do columns.append(cdc_lakehouse.cdc_quote(column)) -%}
    {%- endfor -%}
    {%- do columns.extend([
          '_cdc_position as _cdc_valid_from_position',
          '_cdc_source_ts as valid_from',
          'valid_to', 'is_current', '_cdc_source_db', '_loaded_at']) -%}
    {{ return(columns | join(',\n        ')) }}
{% endmacro %}
