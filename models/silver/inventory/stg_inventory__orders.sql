{{
    config(
        materialized='cdc_incremental',
        incremental_strategy='append',
        on_schema_change='fail',
        enabled=cdc_examples_enabled(),
    )
}}

{{ cdc_lakehouse.cdc_typed_change_log() }}
