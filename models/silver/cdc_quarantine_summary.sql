{{ config(materialized='cdc_view') }}

-- What was quarantined, per load, reason and source, with what the reason means and
-- what to do about it. A message's source is its table, else its Kafka topic, else its
-- landing file (_cdc_quarantine_source).

{%- set source = _cdc_quarantine_source() %}

with

quarantine as (

    select * from {{ ref('cdc_quarantine') }}

),

reason_codes as (

    select * from {{ ref('cdc_reason_codes') }}

),

counted as (

    select
        _loaded_at,
        quarantine_stage,
        reason_code,
        {{ source.name }} as source_name,
        count(*) as messages,
        min(_cdc_error_reason) as example_reason
    from quarantine
    group by
        _loaded_at,
        quarantine_stage,
        reason_code,
        {{ source.name }}

),

final as (

    select
        counted._loaded_at,
        counted.quarantine_stage,
        counted.reason_code,
        counted.source_name,
        counted.messages,
        counted.example_reason,
        reason_codes.meaning,
        reason_codes.remedy
    from counted
    left outer join reason_codes
        on counted.reason_code = reason_codes.reason_code

)

select * from final
