{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='fail') }}

{{ cdc_typed_change_log() }}
