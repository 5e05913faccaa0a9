{% test cdc_recency(model, column_name, max_age_hours) -%}
with

newest as (

    select max({{ column_name }}) as newest_value from {{ model }}

),

final as (

    select
        newest_value,
        (unix_timestamp(current_timestamp()) - unix_timestamp(newest_value)) / 3600.0
            as age_hours
    from newest

)

select * from final
where newest_value is null or age_hours > {{ max_age_hours }}
{% endtest %}
