{{ config(materialized='cdc_table_on_change') }}

-- Type-2 history of customers: every version with its validity period. Rebuilt from the
-- typed change log whenever it gained rows (cdc_table_on_change), so late and replayed
-- events land in their place; a run that loaded nothing leaves it as it is.

{{ cdc_history(
    ref('stg_inventory__customers'),
    key_columns=['id'],
    value_columns=[
        'first_name', 'last_name', 'email', 'balance', 'birth_date', 'created_at', 'is_active',
        'contact_time', 'last_seen_at',
    ],
) }}
