{% test cdc_unique_key(model, columns) -%}
    {%- set recorded = cdc_lakehouse._cdc_recorded_check() -%}
    {%- if recorded is not none -%}
        {%- set recorded_columns = {} -%}
        {%- for column in columns -%}
            {%- do recorded_columns.update({column: 'string'}) -%}
        {%- endfor -%}
        {%- do recorded_columns.update({'row_count': 'bigint'}) -%}
        {{ cdc_lakehouse._cdc_recorded_rows_sql(recorded, recorded_columns) }}
    {%- else %}
    select
        {{ cdc_lakehouse._cdc_quote_list(columns) }},
        count(*) as row_count
    from {{ model }}
    group by {{ cdc_lakehouse._cdc_quote_list(columns) }}
    having count(*) > 1
    {%- endif %}
{% endtest %}
