{% macro cdc_var(name) %}
  {%- set defaults = cdc_lakehouse._cdc_var_defaults() -%}
  {%- if name not in defaults -%}
    {{ exceptions.raise_compiler_error(
        "cdc_var('" ~ name ~ "'): not a var of the package; its vars: "
        ~ defaults.keys() | sort | join(', ')) }}
  {%- endif -%}
  {{ return(var(name, defaults[name])) }}
{% endmacro %}

{% macro _cdc_var_defaults() %}
  {#- Every var the package reads, with its default: the one table (docs/configuration.md). -#}
  {%- set defaults -%}
# landing (docs/landing.md); the environment variable wins: CDC_LANDING_DIR=/my/files make demo
cdc_landing_dir: "{{ env_var('CDC_LANDING_DIR', 'landing') }}"
cdc_landing_glob: "*"
cdc_landing_ignored_names: ["_SUCCESS", "_committed_*", "_started_*", "_temporary", "*.crc",
  "*._COPYING_", "*.inprogress*", "*.pending", "+tmp", ".DS_Store", ".gitkeep", ".keep"]
cdc_landing_unlisted_files: true
cdc_landing_glob_max_files: 2000
cdc_kafka_bootstrap_servers: null
cdc_kafka_topics: []
cdc_kafka_topic_pattern: null
cdc_kafka_options: {}
# silver (docs/formats.md, docs/contracts.md)
cdc_connector_families: [debezium_flattened, alibaba_dataworks, canal, maxwell, ogg,
  debezium_mongodb, debezium_relational]
cdc_family_probe_max_messages: 50000
cdc_decimal_handling: precise
cdc_connector_overrides: []
cdc_topic_tables: {}
cdc_flattened_topics: []
cdc_flattened_field_prefix: "__"
cdc_flattened_header_prefix: "__"
cdc_signal_tables: ["debezium_signal"]
cdc_table_keys: {}
cdc_typed_change_logs: []
cdc_latest_versions_growth: 1.0
cdc_transaction_consistent_sources: []
cdc_transaction_wait_max_hours: null
cdc_transaction_release: []
cdc_unavailable_value_placeholder: __debezium_unavailable_value
# MongoDB documents: the Python the transform clause runs (docs/formats.md)
cdc_python: python3
cdc_python_udfs_dir: null
# gold (docs/gold.md)
cdc_gold_file_format: "{{ env_var('CDC_GOLD_FILE_FORMAT', 'parquet') }}"
cdc_gold_buckets: 8
cdc_tombstone_retention_days: 7
cdc_compaction_ratio: 0.1
cdc_gold_change_data_feed: false
cdc_snapshot_reconciliation: "off"
cdc_snapshots_enabled: null
# checks and run history (docs/data-tests.md, docs/operations.md)
cdc_test_scope: "{{ env_var('CDC_TEST_SCOPE', 'loaded') }}"
cdc_quarantine_error_share: 1
cdc_unread_source_severity: error
cdc_freshness_max_age_hours: 24
cdc_freshness_error_age_hours: 72
cdc_sync_max_quiet_hours: 24
cdc_max_lag_seconds: null
cdc_record_run_durations: true
cdc_replayed_sources: []
cdc_gap_tolerant_topics: []
# dbt unit tests (docs/unit-tests.md)
cdc_unit_test_model: {}
  {%- endset -%}
  {{ return(fromyaml(defaults)) }}
{% endmacro %}
