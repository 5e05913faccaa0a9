{% macro _cdc_transaction_settings() %}
    {#- The transaction-consistency settings, validated. -#}
    {%- set sources = cdc_lakehouse.cdc_var('cdc_transaction_consistent_sources') -%}
    {%- set sources = [sources] if sources is string else sources -%}
    {%- if sources is none -%}
        {%- set sources = [] -%}
    {%- endif -%}
    {%- if sources is mapping or sources is not iterable
          or (sources | reject('string') | list | length) > 0 -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_transaction_consistent_sources: expected a list of source database names "
            ~ "or glob patterns (e.g. ['erp', 'crm_*']), got: " ~ sources) }}
    {%- endif -%}
    {%- set wait = cdc_lakehouse.cdc_var('cdc_transaction_wait_max_hours') -%}
    {%- if wait is not none and (wait is string or wait is not number or wait <= 0) -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_transaction_wait_max_hours: expected a number of hours > 0 or null "
            ~ "(wait until the transaction completes), got: " ~ wait) }}
    {%- endif -%}
    {%- set release = cdc_lakehouse.cdc_var('cdc_transaction_release') -%}
    {%- set release = [release] if release is string else (release or []) -%}
    {%- if release is mapping or (release | reject('string') | list | length) > 0 -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_transaction_release: expected a list of transaction ids (strings, as "
            ~ "int_cdc__pending_transactions lists them), got: " ~ release) }}
    {%- endif -%}
    {{ return({'sources': sources | list, 'wait_max_hours': wait, 'release': release | list}) }}
{% endmacro %}

{% macro _cdc_data_collection_matches(qualified_name, data_collection) %}
    {#- SQL boolean: a transaction END's `data_collection` names the event's table. -#}
    ({{ qualified_name }} = {{ data_collection }}
        or {{ qualified_name }} like concat('%.', {{ data_collection }}))
{%- endmacro %}
