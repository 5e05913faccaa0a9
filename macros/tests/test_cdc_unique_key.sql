{% test cdc_unique_key(model, columns) %}
    {#- Fails with one row per key value (combination of `columns`) held more than once. -#}
    select
        {{ cdc_lakehouse._cdc_quote_list(columns) }},
        count(*) as row_count
    from {{ model }}
    group by {{ cdc_lakehouse._cdc_quote_list(columns) }}
    having count(*) > 1
{% endtest %}
