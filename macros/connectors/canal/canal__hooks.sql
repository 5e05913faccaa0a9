{% macro canal__body_fields() %}
    {#- Returns the {name: Spark DDL type} of the message body fields this family reads. -#}
    {{ return({
        'data': 'string', 'old': 'string', 'database': 'string', 'table': 'string',
        'type': 'string', 'isDdl': 'string', 'es': 'string', 'ts': 'string', 'id': 'string',
        'pkNames': 'array<string>', 'sql': 'string', 'mysqlType': 'string', 'sqlType': 'string',
    }) }}
{% endmacro %}

{% macro canal__schema_fields() %}
    {#- Returns the {name: Spark DDL type} of the top-level `schema` fields this family reads. -#}
    {{ return({}) }}
{% endmacro %}

{% macro canal__detect(message) %}
    {#- SQL boolean: the message is in the canal-json format. -#}
    (
        {{ message }}.envelope.payload is null
        and {{ message }}.body.type is not null
        and (
            startswith(ltrim({{ message }}.body.data), '[')
            or ({{ message }}.body.isDdl is not null and {{ message }}.body.table is not null)
        )
    )
{% endmacro %}

{% macro canal__connector(message) %}
    {#- SQL expression: the connector name ('canal'). -#}
    'canal'
{% endmacro %}

{% macro canal__message_kind(message) %}
    {#- An unknown type is a change whose op is null: error_reason names it (unknown_op). -#}
    case
        when lower({{ message }}.body.isDdl) = 'true' and upper({{ message }}.body.type) != 'TRUNCATE'
            then 'schema_change'
        else 'change'
    end
{% endmacro %}

{% macro canal__op(message) %}
    {#- c, r, u, d or t for a change (null: unknown); the format's own op otherwise. -#}
    case
        when upper({{ message }}.body.type) = 'TRUNCATE' then 't'
        when lower({{ message }}.body.isDdl) = 'true' then {{ message }}.body.type
        when {{ message }}.body.type = 'INSERT' then 'c'
        when {{ message }}.body.type = 'UPDATE' then case when {{ message }}.row_image.after is null then 'd' else 'u' end
        when {{ message }}.body.type = 'DELETE' then 'd'
    end
{% endmacro %}

{% macro canal__table_identity(message) %}
    {#- The changed table: `database` and `table`, else the topic's. -#}
    {{ cdc_lakehouse._cdc_db_table_identity(message ~ '.body.database', message ~ '.body.table', message ~ '._kafka_topic') }}
{% endmacro %}

{% macro canal__row_images(message) %}
    {#- One row change per row of `data`; a key change as a delete and an update. -#}
    {%- set body = message ~ '.body' -%}
    {%- set row_changes -%}
        case
            when {{ body }}.type = 'UPDATE' and (
                    coalesce(size({{ body }}.pkNames), 0) < 1
                    or exists(
                        {{ body }}.pkNames,
                        key_column -> map_contains_key({{ cdc_lakehouse._cdc_json_map('canal_old_row') }}, lower(key_column))
                    )
                )
                then array(
                    named_struct('before', canal_before, 'after', cast(null as string)),
                    named_struct('before', canal_before, 'after', row_image)
                )
            else array(named_struct(
                'before', case
                    when {{ body }}.type = 'UPDATE' then canal_before
                    when {{ body }}.type = 'DELETE' then row_image
                end,
                'after', case when {{ body }}.type != 'DELETE' then row_image end
            ))
        end
    {%- endset -%}
    {%- set rows -%}
        flatten(transform(
            from_json({{ body }}.data, 'array<string>'),
            (row_image, row_index) -> {{ cdc_lakehouse._cdc_let(
                'try_element_at(canal_old_rows, row_index + 1)', 'canal_old_row',
                cdc_lakehouse._cdc_let(cdc_lakehouse._cdc_json_overlay('row_image', 'canal_old_row'), 'canal_before', row_changes)) }}
        ))
    {%- endset %}
    case
        when coalesce(lower({{ body }}.isDdl), 'false') != 'true' and {{ body }}.data is not null
            then {{ cdc_lakehouse._cdc_let("from_json(" ~ body ~ ".old, 'array<string>')", 'canal_old_rows', rows) }}
    end
{% endmacro %}

{% macro canal__key(message, announced_key) %}
    {#- `pkNames` read off the row image (`before` for d); no pkNames: the whole row image. -#}
    {%- set keys = 'transform(' ~ message ~ '.body.pkNames, key_column -> lower(key_column))' -%}
    case
        when {{ message }}.op = 'd' then {{ cdc_lakehouse.cdc_key_from_image(
            message ~ '.declared_key', cdc_lakehouse._cdc_json_map(message ~ '.row_image.before'), keys
        ) }}
        when {{ message }}.op in ('c', 'u') then {{ cdc_lakehouse.cdc_key_from_image(
            message ~ '.declared_key', cdc_lakehouse._cdc_json_map(message ~ '.row_image.after'), keys
        ) }}
    end
{% endmacro %}

{% macro canal__position(message) %}
    {#- The position: `es`, then `ts`, each left-padded. -#}
    case
        when {{ message }}.body.es rlike '^[0-9]{1,20}$' and {{ message }}.body.ts rlike '^[0-9]{1,20}$'
            then concat(
                lpad({{ message }}.body.es, 20, '0'),
                '.',
                lpad({{ message }}.body.ts, 20, '0')
            )
    end
{% endmacro %}

{% macro canal__has_position(message) %}
    {#- SQL boolean: the message carries `es` or `ts` (else ordered by arrival). -#}
    ({{ message }}.body.es is not null or {{ message }}.body.ts is not null)
{% endmacro %}

{% macro canal__is_snapshot(message) %}
    {#- SQL boolean: a snapshot / full-load read. -#}
    false
{% endmacro %}

{% macro canal__snapshot(message) %}
    {#- SQL expression: the raw snapshot marker, else null. -#}
    cast(null as string)
{% endmacro %}

{% macro canal__source_ts(message) %}
    {#- SQL timestamp of the change at the source. -#}
    timestamp_millis(try_cast({{ message }}.body.es as bigint))
{% endmacro %}

{% macro canal__emitted_ts(message) %}
    {#- SQL timestamp the connector processed it, else null. -#}
    timestamp_millis(try_cast({{ message }}.body.ts as bigint))
{% endmacro %}

{% macro canal__before(message) %}
    {#- SQL expression: the row image before the change (JSON text as carried). -#}
    {{ message }}.row_image.before
{% endmacro %}

{% macro canal__after(message) %}
    {#- SQL expression: the row image after the change (JSON text as carried). -#}
    {{ message }}.row_image.after
{% endmacro %}

{% macro canal__patch(message) %}
    {#- SQL null: this format has no partial updates. -#}
    cast(null as string)
{% endmacro %}

{% macro canal__column_types(message) %}
    {#- `mysqlType` as `canal.<MySQL type>` (every canal value is a string). -#}
    transform_values(
        transform_keys(from_json({{ message }}.body.mysqlType, 'map<string, string>'), (k, v) -> lower(k)),
        (k, v) -> named_struct(
            'type', 'string',
            'name', concat('canal.', v),
            'scale', cast(null as string),
            'precision', cast(null as string)
        )
    )
{% endmacro %}

{% macro canal__transaction_id(message) %}
    {#- SQL expression: the source transaction id, else null. -#}
    cast(null as string)
{% endmacro %}

{% macro canal__error_reason(message) %}
    {#- SQL expression: why the message cannot be read (reason code first), else null. -#}
    case
        when {{ message }}.kind != 'change' then null
        when {{ message }}.op is null
            then 'unknown_op: Canal type ''' || coalesce({{ message }}.body.type, '(none)')
                || ''' is not INSERT, UPDATE, DELETE or DDL'
        when {{ message }}.source_table is null
            then 'missing_table: the Canal message has no table'
        when {{ message }}.position is null
            then 'bad_position: the Canal es/ts are incomplete or not numbers'
        when {{ message }}.op != 't' and {{ message }}.row_image is null
            then 'missing_after: Canal ' || {{ message }}.body.type || ' without rows (data)'
        when {{ message }}.op != 't' and {{ message }}.row_key is null
            then 'missing_row_key: a row lacks a pkNames column'
    end
{% endmacro %}
