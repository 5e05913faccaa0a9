{% macro _cdc_latest_versions_grouped(relation, loaded_after=none) %}
    {#- SQL: one row per key of the fold model, as its table of latest versions holds it. -#}
    select
        _cdc_source_id,
        _cdc_key,
        max_by(
            named_struct('document', _cdc_after, 'is_partial', _cdc_is_partial), _cdc_sort_key
        ) as latest_version,
        max(_cdc_sort_key) as latest_sort_key,
        max(_cdc_message_sort_key) as latest_message_sort_key
    from {{ relation }}
    {%- if loaded_after %}
    where _loaded_at > timestamp'{{ loaded_after }}'
    {%- endif %}
    group by _cdc_source_id, _cdc_key
{% endmacro %}
