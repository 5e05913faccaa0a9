{{
    config(
        materialized='cdc_incremental',
        incremental_strategy='append',
        on_schema_change='fail',
    )
}}

{{ cdc_lakehouse.cdc_typed_change_log() }}
