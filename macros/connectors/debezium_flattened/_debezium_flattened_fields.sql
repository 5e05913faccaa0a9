{% macro _debezium_flattened_prefix(kind='field') %}
    {#- The prefix of the fields, or headers, ExtractNewRecordState adds. -#}
    {%- set name = 'cdc_flattened_' ~ kind ~ '_prefix' -%}
    {%- set prefix = cdc_lakehouse.cdc_var(name) | string -%}
    {%- if not modules.re.fullmatch('[A-Za-z0-9_]+', prefix) -%}
        {{ exceptions.raise_compiler_error(
            "var " ~ name ~ " '" ~ prefix ~ "': letters, digits and _ only"
        ) }}
    {%- endif -%}
    {{ return(prefix) }}
{% endmacro %}

{% macro _debezium_flattened_header_list(raw_line) %}
    {#- A kcat record's headers as kcat -J prints them (name, value, ...: array<string>), null without any. -#}
    from_json(get_json_object({{ raw_line }}, '$.headers'), 'array<string>')
{% endmacro %}

{% macro _debezium_flattened_headers(header_list) %}
    {#- The added fields a record's headers carry (`add.headers`), named as the body names them. -#}
    {%- set field_prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    {%- set header_prefix = cdc_lakehouse._debezium_flattened_prefix('header') -%}
    {%- set fields = [] -%}
    {%- for name in cdc_lakehouse.debezium_flattened__body_fields() -%}
        {%- set header = header_prefix ~ name[field_prefix | length:] -%}
        {%- set value = "try_element_at(header_list, cast(nullif(array_position(header_list, '"
            ~ header ~ "'), 0) + 1 as int))" -%}
        {%- do fields.append("'" ~ name ~ "', coalesce(get_json_object(" ~ value ~ ", '$.payload'), get_json_object("
            ~ value ~ ", '$'), " ~ value ~ ")") -%}
    {%- endfor -%}
    {{ cdc_lakehouse._cdc_let(
        header_list, 'header_list',
        'case when size(header_list) >= 2 then named_struct(' ~ (fields | join(', ')) ~ ') end'
    ) }}
{% endmacro %}

{% macro _debezium_flattened_source_fields() %}
    {#- The `source` fields a flattened record may carry, as `add.fields` names them. -#}
    {{ return([
        'connector', 'name', 'snapshot', 'db', 'schema', 'table', 'txId', 'lsn', 'file', 'pos',
        'row', 'server_id', 'gtid', 'scn', 'commit_scn', 'change_lsn', 'commit_lsn',
        'event_serial_no', 'commit_ts', 'sequence',
    ]) }}
{% endmacro %}

{% macro _debezium_flattened_source(message) %}
    {#- The `source` block a flattened record's added fields give back. -#}
    {%- set prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    {%- set carried = cdc_lakehouse._debezium_flattened_source_fields() -%}
    {%- set names = modules.re.findall('(\\w+): string', cdc_lakehouse._debezium_source_type()) -%}
    named_struct(
    {%- for name in names %}
        {%- if name == 'ts_ms' %}
        'ts_ms', {{ message }}.body.`{{ prefix }}source_ts_ms`
        {%- elif name in carried %}
        '{{ name }}', {{ cdc_lakehouse._debezium_flattened_added(message, name) }}
        {%- else %}
        '{{ name }}', cast(null as string)
        {%- endif %}{{ ',' if not loop.last }}
    {%- endfor %}
    )
{% endmacro %}

{% macro _debezium_flattened_added(message, name) %}
    {#- The added `source` field `name` (`<prefix><name>`, else `<prefix>source_<name>`), null when not added. -#}
    {%- set prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    coalesce({{ message }}.body.`{{ prefix }}{{ name }}`, {{ message }}.body.`{{ prefix }}source_{{ name }}`)
{% endmacro %}

{% macro _debezium_flattened_value(message) %}
    {#- The record's value as JSON text: its `payload` when the JsonConverter wrote a schema, else the value itself. -#}
    case
        when {{ message }}.envelope.payload is not null
            then get_json_object({{ message }}.message_value, '$.payload')
        else {{ message }}.message_value
    end
{% endmacro %}

{% macro _debezium_flattened_topic(topic) %}
    {#- SQL boolean: the topic is declared flattened (var cdc_flattened_topics). -#}
    {%- set patterns = cdc_lakehouse.cdc_var('cdc_flattened_topics') -%}
    {%- if patterns is string -%}
        {%- set patterns = [patterns] -%}
    {%- endif -%}
    {%- if patterns | length == 0 -%}
        false
    {%- else -%}
        coalesce(
        {%- for pattern in patterns %}
            {{ topic }} rlike '{{ cdc_lakehouse._cdc_escape_string(pattern) }}'{{ ' or' if not loop.last }}
        {%- endfor %}
        , false)
    {%- endif -%}
{% endmacro %}

{% macro _debezium_flattened_row(message) %}
    {#- The flattened record's row as JSON text, without the added fields. -#}
    {%- set prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    case
        when {{ message }}.message_value is not null then to_json(map_filter(
            from_json({{ cdc_lakehouse._debezium_flattened_value(message) }}, 'map<string, variant>'),
            (field_name, field_value) -> not startswith(field_name, '{{ prefix }}')
        ))
    end
{% endmacro %}

{% macro _debezium_flattened_reparse(message_value) %}
    {#- A message parsed with the flattened family's fields alone. -#}
    {%- set fields = [] -%}
    {%- for name, type in cdc_lakehouse.debezium_flattened__body_fields().items() -%}
        {%- do fields.append('`' ~ name ~ '`: ' ~ type) -%}
    {%- endfor -%}
    from_json({{ message_value }}, 'struct<{{ fields | join(", ") }}>')
{% endmacro %}

{% macro _debezium_flattened_recovered(message, headers=none) %}
    {#- SQL boolean: the union schema failed on a flattened record that the reparse reads. -#}
    {%- set prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    coalesce(
        {{ message }}.flattened_body is not null and (
            {{ message }}.flattened_body.`{{ prefix }}op` is not null
            or {{ message }}.flattened_body.`{{ prefix }}deleted` is not null
            {%- if headers is not none %}
            or {{ headers }}.`{{ prefix }}op` is not null
            {%- endif %}
            or {{ cdc_lakehouse._debezium_flattened_topic(message ~ '._kafka_topic') }}
        ),
        false
    )
{% endmacro %}

{% macro _debezium_flattened_body(fields, headers, others=none) %}
    {#- The body struct of the union schema, with a flattened record's added fields. -#}
    {%- set mine = cdc_lakehouse.debezium_flattened__body_fields() -%}
    named_struct(
    {%- for name, type in cdc_lakehouse._cdc_union_field_types('body_fields').items() %}
        '{{ name }}', {% if name in mine -%}
            coalesce({{ fields }}.`{{ name }}`, {{ headers }}.`{{ name }}`)
        {%- elif others is not none -%}
            {{ others }}.`{{ name }}`
        {%- else -%}
            cast(null as {{ type }})
        {%- endif %}{{ ',' if not loop.last }}
    {%- endfor %}
    )
{% endmacro %}
