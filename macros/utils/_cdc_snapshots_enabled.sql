{% macro _cdc_snapshots_enabled() %}
    {#-
        Whether int_cdc__snapshots is built, as true or false.
        It is var `cdc_snapshots_enabled` when set, else whether var
        `cdc_snapshot_reconciliation` is on. The view serves snapshot
        reconciliation alone; a project whose gold models opt in one by one (their own
        `cdc_snapshot_reconciliation` config, the var off) sets `cdc_snapshots_enabled: true`.
    -#}
    {%- set enabled = cdc_lakehouse.cdc_var('cdc_snapshots_enabled') -%}
    {%- if enabled is none -%}
        {{ return(cdc_lakehouse.cdc_var('cdc_snapshot_reconciliation') != 'off') }}
    {%- endif -%}
    {%- if enabled is not boolean and enabled not in ['true', 'false'] -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_snapshots_enabled: expected true or false, got: " ~ enabled) }}
    {%- endif -%}
    {{ return(enabled in [true, 'true']) }}
{% endmacro %}
