{% macro _cdc_snapshots_enabled() %}
    {#- Whether int_cdc__snapshots is built, as true or false. -#}
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
