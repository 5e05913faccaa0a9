{% macro maxwell__body_fields() %}
    {#- Returns the {name: Spark DDL type} of the message body fields this family reads. -#}
    {{ return({
        'data': 'string', 'old': 'string', 'database': 'string', 'table': 'string',
        'type': 'string', 'ts': 'string', 'xid': 'string', 'xoffset': 'string',
        'commit': 'string', 'primary_key_columns': 'array<string>', 'sql': 'string',
    }) }}
{% endmacro %}

{% macro maxwell__schema_fields() %}
    {#- Returns the {name: Spark DDL type} of the top-level `schema` fields this family reads. -#}
    {{ return({}) }}
{% endmacro %}

{% macro maxwell__detect(message) %}
    {#- SQL boolean: the message is in the maxwell-json format. -#}
    (
        {{ message }}.envelope.payload is null
        and {{ message }}.body.isDdl is null
        and {{ message }}.body.type is not null
        and (
            startswith(ltrim({{ message }}.body.data), '{')
            or ({{ message }}.body.database is not null and {{ message }}.body.ts is not null)
        )
    )
{% endmacro %}

{% macro maxwell__connector(message) %}
    {#- SQL expression: the connector name ('maxwell'). -#}
    'maxwell'
{% endmacro %}

{% macro maxwell__message_kind(message) %}
    {#- SQL expression: change, transaction, schema_change, heartbeat or control. -#}
    case
        when {{ message }}.body.type like 'table-%' or {{ message }}.body.type like 'database-%'
            then 'schema_change'
        when {{ message }}.body.type in ('bootstrap-start', 'bootstrap-complete') then 'control'
        else 'change'
    end
{% endmacro %}

{% macro maxwell__op(message) %}
    {#- c, r, u, d or t for a change (null: unknown); the format's own op otherwise. -#}
    case {{ message }}.body.type
        when 'insert' then 'c'
        when 'bootstrap-insert' then 'r'
        when 'update' then case when {{ message }}.row_image is not null and {{ message }}.row_image.after is null then 'd' else 'u' end
        when 'delete' then 'd'
        else case when {{ cdc_lakehouse.maxwell__message_kind(message) }} != 'change' then {{ message }}.body.type end
    end
{% endmacro %}

{% macro maxwell__table_identity(message) %}
    {#- The changed table: `database` and `table`, else the topic's. -#}
    {{ cdc_lakehouse._cdc_db_table_identity(message ~ '.body.database', message ~ '.body.table', message ~ '._kafka_topic') }}
{% endmacro %}

{% macro maxwell__key(message, announced_key) %}
    {#- The key: a declared key, `primary_key_columns`, the Kafka key's, else the whole row. -#}
    case
        when {{ message }}.declared_key is not null
            then {{ cdc_lakehouse.cdc_key_from_image(
                message ~ '.declared_key',
                cdc_lakehouse._cdc_json_map(cdc_lakehouse._maxwell_image(message))
            ) }}
        when size({{ message }}.body.primary_key_columns) > 0 or {{ message }}.message_key is null
            then {{ cdc_lakehouse.cdc_key_from_image(
                message ~ '.declared_key',
                cdc_lakehouse._cdc_json_map(cdc_lakehouse._maxwell_image(message)),
                'transform(' ~ message ~ '.body.primary_key_columns, key_column -> lower(key_column))'
            ) }}
        when {{ message }}.body.type = 'update' and {{ message }}.row_image is not null
            and {{ message }}.row_image.after is null
            then {{ cdc_lakehouse._maxwell_key_of(cdc_lakehouse._cdc_json_map(message ~ '.row_image.before'), cdc_lakehouse._maxwell_key_columns(message)) }}
        else coalesce(
            {{ cdc_lakehouse._cdc_canonical_json_map(
                'transform_keys(' ~ cdc_lakehouse._maxwell_kafka_key_fields(message) ~ ', (k, v) -> substr(k, 4))',
                folded=true
            ) }},
            {{ cdc_lakehouse.cdc_key_from_image(message ~ '.declared_key', cdc_lakehouse._cdc_json_map(cdc_lakehouse._maxwell_image(message))) }}
        )
    end
{% endmacro %}

{% macro _maxwell_kafka_key_fields(message) %}
    {#- The `pk.<column>` fields of the Kafka key (map<string, string>), null without one. -#}
    case
        when startswith(ltrim({{ message }}.message_key), '[')
            then transform_keys(
                aggregate(
                    from_json(
                        from_json({{ message }}.message_key, 'array<string>')[2],
                        'array<map<string, string>>'
                    ),
                    cast(map() as map<string, string>),
                    (key_fields, key_field) -> map_concat(key_fields, key_field)
                ),
                (k, v) -> concat('pk.', lower(k))
            )
        else map_filter({{ cdc_lakehouse._cdc_json_map(message ~ '.message_key') }}, (k, v) -> k like 'pk.%')
    end
{% endmacro %}

{% macro _maxwell_key_columns(message) %}
    {#- The key columns of a row change, lower case. -#}
    case
        when {{ message }}.declared_key is not null then {{ message }}.declared_key
        when size({{ message }}.body.primary_key_columns) > 0
            then transform({{ message }}.body.primary_key_columns, key_column -> lower(key_column))
        else transform(map_keys({{ cdc_lakehouse._maxwell_kafka_key_fields(message) }}), key_field -> substr(key_field, 4))
    end
{% endmacro %}

{% macro _maxwell_key_of(image_map, key_columns) %}
    {#- The canonical key of a row image by the given key columns. -#}
    {%- set key -%}
        case
            when forall(key_names, key_column -> key_image[key_column] is not null)
                then {{ cdc_lakehouse._cdc_canonical_json_map(
                    'map_from_arrays(key_names, transform(key_names, key_column -> key_image[key_column]))',
                    folded=true
                ) }}
        end
    {%- endset -%}
    {{ cdc_lakehouse._cdc_let(key_columns, 'key_names', cdc_lakehouse._cdc_let(image_map, 'key_image', key)) }}
{% endmacro %}

{% macro _maxwell_image(message) %}
    {#- The row image a change is keyed by: `before` for d, else `after`. -#}
    case when {{ message }}.op = 'd' then {{ cdc_lakehouse.maxwell__before(message) }} else {{ cdc_lakehouse.maxwell__after(message) }} end
{% endmacro %}

{% macro maxwell__row_images(message) %}
    {#- A key-changing update as a delete and an update, else null. -#}
    case
        when {{ message }}.body.type = 'update'
            and exists(
                {{ cdc_lakehouse._maxwell_key_columns(message) }},
                key_column -> map_contains_key({{ cdc_lakehouse._cdc_json_map(message ~ '.body.old') }}, key_column)
            )
            then array(
                named_struct('before', {{ cdc_lakehouse._cdc_json_overlay(message ~ '.body.data', message ~ '.body.old') }}, 'after', cast(null as string)),
                named_struct('before', {{ cdc_lakehouse._cdc_json_overlay(message ~ '.body.data', message ~ '.body.old') }}, 'after', {{ message }}.body.data)
            )
    end
{% endmacro %}

{% macro maxwell__position(message) %}
    {#- The position: `ts`, `xid`, then `xoffset`. -#}
    case
        when {{ message }}.body.ts rlike '^[0-9]{1,20}$'
            and coalesce({{ message }}.body.xid, '0') rlike '^[0-9]{1,20}$'
            and coalesce({{ message }}.body.xoffset, '0') rlike '^[0-9]{1,10}$'
            then concat(
                lpad({{ message }}.body.ts, 20, '0'),
                '.',
                lpad(coalesce({{ message }}.body.xid, '0'), 20, '0'),
                '.',
                coalesce(lpad({{ message }}.body.xoffset, 10, '0'), repeat('9', 10))
            )
    end
{% endmacro %}

{% macro maxwell__has_position(message) %}
    {#- SQL boolean: the message carries `ts`, `xid` or `xoffset`. -#}
    (
        {{ message }}.body.ts is not null
        or {{ message }}.body.xid is not null
        or {{ message }}.body.xoffset is not null
    )
{% endmacro %}

{% macro maxwell__is_snapshot(message) %}
    {#- SQL boolean: a snapshot / full-load read. -#}
    coalesce({{ message }}.body.type = 'bootstrap-insert', false)
{% endmacro %}

{% macro maxwell__snapshot(message) %}
    {#- SQL expression: the raw snapshot marker, else null. -#}
    case when {{ message }}.body.type = 'bootstrap-insert' then 'true' end
{% endmacro %}

{% macro maxwell__source_ts(message) %}
    {#- SQL timestamp of the change at the source. -#}
    timestamp_seconds(try_cast({{ message }}.body.ts as bigint))
{% endmacro %}

{% macro maxwell__emitted_ts(message) %}
    {#- SQL timestamp the connector processed it, else null. -#}
    cast(null as timestamp)
{% endmacro %}

{% macro maxwell__before(message) %}
    {#- SQL expression: the row image before the change (JSON text as carried). -#}
    case
        when {{ message }}.row_image is not null then {{ message }}.row_image.before
        when {{ message }}.body.type = 'update' then {{ cdc_lakehouse._cdc_json_overlay(message ~ '.body.data', message ~ '.body.old') }}
        when {{ message }}.body.type = 'delete' then {{ message }}.body.data
    end
{% endmacro %}

{% macro maxwell__after(message) %}
    {#- SQL expression: the row image after the change (JSON text as carried). -#}
    case
        when {{ message }}.row_image is not null then {{ message }}.row_image.after
        when {{ message }}.body.type != 'delete' then {{ message }}.body.data
    end
{% endmacro %}

{% macro maxwell__patch(message) %}
    {#- SQL null: this format has no partial updates. -#}
    cast(null as string)
{% endmacro %}

{% macro maxwell__column_types(message) %}
    {#- Always null: the format carries no column schema. -#}
    cast(null as map<string, struct<type: string, name: string, scale: string, precision: string>>)
{% endmacro %}

{% macro maxwell__transaction_id(message) %}
    {#- SQL expression: the source transaction id, else null. -#}
    {{ message }}.body.xid
{% endmacro %}

{% macro maxwell__error_reason(message) %}
    {#- SQL expression: why the message cannot be read (reason code first), else null. -#}
    case
        when {{ message }}.kind != 'change' then null
        when {{ message }}.op is null
            then 'unknown_op: Maxwell type ''' || {{ message }}.body.type
                || ''' is not insert, bootstrap-insert, update, delete or DDL'
        when {{ message }}.source_table is null
            then 'missing_table: the Maxwell message has no table'
        when {{ message }}.position is null
            then 'bad_position: the Maxwell ts/xid/xoffset are incomplete or not numbers'
        when {{ message }}.body.data is null or not startswith(ltrim({{ message }}.body.data), '{')
            then 'missing_after: Maxwell ' || {{ message }}.body.type || ' without a data object'
        when {{ message }}.row_key is null
            then 'missing_row_key: the row image lacks a key column (primary_key_columns or the Kafka key''s pk.*)'
    end
{% endmacro %}
