{% macro _cdc_rows_through(relation, kinds=none) %}
    {#-
        Through which `_loaded_at` a table may hold rows of the given kinds.
        The read-through of the last write of `relation` that could add rows
        (`cdc.rows_through`, _cdc_record_read_through; its read-through for a table written
        before that property). With `kinds` (names of a model's config `cdc_input_kinds`) and
        a table that summarises its writes by kind (config `cdc_summary`,
        _cdc_summarise_write: `cdc.summary.kinds`, `cdc.summary.<kind>`), the newest
        read-through of a write that added rows of one of those kinds, '' when none ever
        did (recorded as 'none'). None when the table's last write did not finish (nothing is known). A text
        timestamp, compared as text (Spark's cast of a timestamp to string sorts as time).
    -#}
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
