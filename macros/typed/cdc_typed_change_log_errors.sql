{% macro cdc_typed_change_log_errors() -%}
    {%- set typed = [] -%}
    {%- if execute -%}
        {%- for node in graph.nodes.values() | sort(attribute='name')
                if node.resource_type == 'model'
                and cdc_lakehouse.cdc_source_contract(node.config.meta, node.name) is not none -%}
            {%- if node.unique_id not in model.depends_on.nodes -%}
                {{ exceptions.raise_compiler_error(
                    "Typed change-log model '" ~ node.name ~ "' of project " ~ node.package_name
                    ~ " is not read by " ~ model.package_name ~ "'s " ~ model.name
                    ~ ", so its rejected rows would be missed: add '" ~ node.name
                    ~ "' to the var cdc_typed_change_logs in " ~ node.package_name
                    ~ "'s dbt_project.yml."
                ) }}
            {%- endif -%}
            {%- do typed.append(node) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- for node in typed %}
    select
        _message_id,
        '{{ node.name }}' as quarantine_stage,
        _cdc_connector,
        _cdc_source_id,
        _cdc_error_reason,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from {{ node.relation_name }}
    where _cdc_error_reason is not null
    union all
    {%- endfor %}
    select
        cast(null as string) as _message_id,
        cast(null as string) as quarantine_stage,
        cast(null as string) as _cdc_connector,
        cast(null as string) as _cdc_source_id,
        cast(null as string) as _cdc_error_reason,
        cast(null as string) as _kafka_topic,
        cast(null as int) as _kafka_partition,
        cast(null as bigint) as _kafka_offset,
        cast(null as string) as _source_file,
        cast(null as int) as _source_line,
        cast(null as timestamp) as _loaded_at
    where false
{% endmacro %}
