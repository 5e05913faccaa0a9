{{ config(materialized='table') }}

-- Type-2 history of customers: every version with its validity period. Rebuilt from the
-- typed change log on each run, so late and replayed events land in their place.

{{ cdc_history(
    ref('stg_inventory__customers'),
    key_columns=['id'],
    value_columns=[
        'first_name', 'last_name', 'email', 'balance', 'birth_date', 'created_at', 'is_active',
        'contact_time', 'last_seen_at',
    ],
) }}
