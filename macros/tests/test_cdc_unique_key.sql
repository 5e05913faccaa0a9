{% test cdc_unique_key(model, columns) %}
    {#- Fails with one row per key value (combination of `columns`) held more than once. -#}
    select
        {{ columns | join(', ') }},
        count(*) as row_count
    from {{ model }}
    group by {{ columns | join(', ') }}
    having count(*) > 1
{% endtest %}
