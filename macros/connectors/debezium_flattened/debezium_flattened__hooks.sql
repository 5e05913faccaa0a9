{% macro debezium_flattened__body_fields() %}
    {#- The added fields a flattened record may carry, with the configured prefix. -#}
    {%- set prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    {%- set fields = {prefix ~ 'op': 'string', prefix ~ 'deleted': 'string', prefix ~ 'ts_ms': 'string'} -%}
    {%- for name in cdc_lakehouse._debezium_flattened_source_fields() + ['ts_ms'] -%}
        {%- do fields.update({prefix ~ name: 'string', prefix ~ 'source_' ~ name: 'string'}) -%}
    {%- endfor -%}
    {{ return(fields) }}
{% endmacro %}

{% macro debezium_flattened__schema_fields() %}
    {#- The top-level Kafka Connect `schema` fields (_debezium_schema_fields). -#}
    {{ return(cdc_lakehouse._debezium_schema_fields()) }}
{% endmacro %}

{% macro debezium_flattened__detect(message) %}
    {#- SQL boolean: the record is a flattened one. -#}
    {%- set prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    (
        {{ message }}.body.`{{ prefix }}op` is not null
        or {{ message }}.body.`{{ prefix }}deleted` is not null
        or {{ cdc_lakehouse._debezium_flattened_topic(message ~ '._kafka_topic') }}
    )
{% endmacro %}

{% macro debezium_flattened__detect_tombstone(message) %}
    {#- SQL boolean: a tombstone of a topic declared flattened (var cdc_flattened_topics) is a delete of its key. -#}
    {{ cdc_lakehouse._debezium_flattened_topic(message ~ '._kafka_topic') }}
{% endmacro %}

{% macro debezium_flattened__connector(message) %}
    {#- _debezium_connector of the added source fields, the topic as the locator. -#}
    {{ cdc_lakehouse._debezium_connector(
        cdc_lakehouse._debezium_flattened_source(message),
        'coalesce(' ~ message ~ '._kafka_topic, ' ~ message ~ '._source_file)'
    ) }}
{% endmacro %}

{% macro debezium_flattened__message_kind(message) %}
    {#- Always `change`: the transform passes row changes only. -#}
    'change'
{% endmacro %}

{% macro debezium_flattened__op(message) %}
    {#- The change's op: d for a delete, else the added `op`, else u. -#}
    {%- set prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    case
        when {{ message }}._is_tombstone then 'd'
        when lower({{ message }}.body.`{{ prefix }}deleted`) = 'true' then 'd'
        when {{ message }}.body.`{{ prefix }}op` is not null then {{ message }}.body.`{{ prefix }}op`
        else 'u'
    end
{% endmacro %}

{% macro debezium_flattened__table_identity(message) %}
    {#- The table: the added `db`, `schema` and `table`, else the topic's. -#}
    {%- set source = cdc_lakehouse._debezium_flattened_source(message) -%}
    {%- set from_topic = cdc_lakehouse._debezium_table_identity(
        'named_struct(\'db\', cast(null as string), \'schema\', cast(null as string), \'table\', cast(null as string))',
        'cast(null as string)', message ~ '._kafka_topic'
    ) -%}
    {%- set parts -%}
        named_struct(
            'added', {{ source }},
            'topic', {{ from_topic }},
            -- `<prefix>.<db>.<schema>.<table>` (SQL Server, Db2) names the database too
            'topic_db', case
                when size(split({{ message }}._kafka_topic, '[.]')) >= 4
                    then try_element_at(split({{ message }}._kafka_topic, '[.]'), -3)
            end
        )
    {%- endset -%}
    {{ cdc_lakehouse._cdc_let(parts, 'identity_parts', "case
        when identity_parts.added.table is not null then named_struct(
            'db', identity_parts.added.db,
            'schema', identity_parts.added.schema,
            'table', identity_parts.added.table
        )
        else named_struct(
            'db', coalesce(identity_parts.added.db, identity_parts.topic.db, identity_parts.topic_db),
            'schema', coalesce(identity_parts.added.schema, identity_parts.topic.schema),
            'table', identity_parts.topic.table
        )
    end") }}
{% endmacro %}

{% macro debezium_flattened__key(message, announced_key) %}
    {#- The key: the Kafka key, else the declared or announced key; never the whole row. -#}
    coalesce(
        {{ cdc_lakehouse._debezium_kafka_key(message) }},
        case
            when {{ message }}.declared_key is not null or {{ announced_key }} is not null
                then {{ cdc_lakehouse.cdc_key_from_image(
                    message ~ '.declared_key',
                    cdc_lakehouse._cdc_json_map(cdc_lakehouse._debezium_flattened_value(message)),
                    announced_key
                ) }}
        end
    )
{% endmacro %}

{% macro debezium_flattened__position(message) %}
    {#- The added source position, for a record landed without a Kafka offset. -#}
    case
        when {{ message }}._kafka_offset is null then {{ cdc_lakehouse._debezium_position(
            message ~ '.connector', cdc_lakehouse._debezium_flattened_source(message)
        ) }}
    end
{% endmacro %}

{% macro debezium_flattened__has_position(message) %}
    {#- SQL boolean: no Kafka offset and added source position fields (_debezium_has_position). -#}
    ({{ message }}._kafka_offset is null and {{ cdc_lakehouse._debezium_has_position(
        cdc_lakehouse._debezium_flattened_source(message)
    ) }})
{% endmacro %}

{% macro debezium_flattened__is_snapshot(message) %}
    {#- SQL boolean: the added `op` is r, or the added `snapshot` marks a snapshot read. -#}
    {%- set prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    (
        coalesce({{ message }}.body.`{{ prefix }}op` = 'r', false)
        or {{ cdc_lakehouse._debezium_is_snapshot(
            "named_struct('snapshot', " ~ cdc_lakehouse._debezium_flattened_added(message, 'snapshot') ~ ")"
        ) }}
    )
{% endmacro %}

{% macro debezium_flattened__snapshot(message) %}
    {#- The added `snapshot` marker, null when not added. -#}
    {{ cdc_lakehouse._debezium_flattened_added(message, 'snapshot') }}
{% endmacro %}

{% macro debezium_flattened__source_ts(message) %}
    {#- The added `source.ts_ms` as a timestamp, null when not added. -#}
    {%- set prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    timestamp_millis(try_cast({{ message }}.body.`{{ prefix }}source_ts_ms` as bigint))
{% endmacro %}

{% macro debezium_flattened__emitted_ts(message) %}
    {#- The added `ts_ms` as a timestamp, null when not added. -#}
    {%- set prefix = cdc_lakehouse._debezium_flattened_prefix() -%}
    timestamp_millis(try_cast({{ message }}.body.`{{ prefix }}ts_ms` as bigint))
{% endmacro %}

{% macro debezium_flattened__before(message) %}
    {#- The row of a rewritten delete (its `before`), without the added fields; else null. -#}
    case
        when {{ message }}.op = 'd' then {{ cdc_lakehouse._debezium_flattened_row(message) }}
    end
{% endmacro %}

{% macro debezium_flattened__after(message) %}
    {#- The row, without the added fields, for every change but a delete. -#}
    case
        when {{ message }}.op != 'd' then {{ cdc_lakehouse._debezium_flattened_row(message) }}
    end
{% endmacro %}

{% macro debezium_flattened__patch(message) %}
    {#- Always a null string (a flattened row is whole). -#}
    cast(null as string)
{% endmacro %}

{% macro debezium_flattened__column_types(message) %}
    {#- The Kafka Connect schema of the row's fields (_debezium_column_types), when the record carries one. -#}
    {{ cdc_lakehouse._debezium_column_types(message ~ '.envelope.schema.fields') }}
{% endmacro %}

{% macro debezium_flattened__transaction_id(message) %}
    {#- The added `txId`, null when not added. -#}
    {{ cdc_lakehouse._debezium_flattened_added(message, 'txId') }}
{% endmacro %}

{% macro debezium_flattened__error_reason(message) %}
    {#- Why a flattened record cannot be applied, else null. -#}
    case
        when {{ message }}.op not in ('c', 'u', 'd', 'r')
            then 'unknown_op: op ''' || {{ message }}.op || ''' of a flattened record is not one of c, u, d, r'
        when {{ message }}.source_table is null
            then 'missing_table: a flattened record names no table (no added table field, no '
                || 'topic): map its topic in the var cdc_topic_tables'
        when {{ message }}.position is null
            then 'bad_position: the added source position fields of a flattened record do not read'
        when {{ message }}.op != 'd'
            and ({{ message }}.after is null or not startswith(ltrim({{ message }}.after), '{'))
            then 'missing_after: a flattened record whose value is not an object'
        when {{ message }}.row_key is null
            then 'flattened_without_key: a flattened record carries no key (no Kafka key landed) and '
                || 'none is declared for ' || coalesce({{ message }}.source_table, 'its table')
                || ': set the var cdc_table_keys ({"<db>.<schema>.<table>": [key columns]}) '
                || 'or land the records with their keys (kcat -J, Kafka)'
    end
{% endmacro %}
