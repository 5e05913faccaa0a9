{% macro ogg__body_fields() %}
    {#- Returns the {name: Spark DDL type} of the message body fields this family reads. -#}
    {{ return({
        'table': 'string', 'op_type': 'string', 'op_ts': 'string', 'current_ts': 'string',
        'pos': 'string', 'primary_keys': 'array<string>', 'before': 'string', 'after': 'string',
    }) }}
{% endmacro %}

{% macro ogg__schema_fields() %}
    {#- Returns the {name: Spark DDL type} of the top-level `schema` fields this family reads. -#}
    {{ return({}) }}
{% endmacro %}

{% macro ogg__detect(message) %}
    {#- SQL boolean: the message is OGG's. -#}
    (
        {{ message }}.envelope.payload is null
        and {{ message }}.body.op_type is not null
        and {{ message }}.body.table is not null
    )
{% endmacro %}

{% macro ogg__connector(message) %}
    {#- SQL expression: the connector name ('ogg'). -#}
    'ogg'
{% endmacro %}

{% macro ogg__message_kind(message) %}
    {#- SQL expression: change, transaction, schema_change, heartbeat or control. -#}
    'change'
{% endmacro %}

{% macro ogg__op(message) %}
    {#- c, r, u, d or t for a change (null: unknown); the format's own op otherwise. -#}
    case {{ message }}.body.op_type
        when 'I' then 'c'
        when 'U' then case
            when {{ message }}.row_image is not null and {{ message }}.row_image.after is null then 'd'
            else 'u'
        end
        when 'D' then 'd'
        when 'T' then 't'
    end
{% endmacro %}

{% macro ogg__table_identity(message) %}
    {#- `table` is `[catalog.]schema.table`: db, schema and table from its last three parts. -#}
    named_struct(
        'db', case
            when size(split({{ message }}.body.table, '[.]')) >= 3
                then try_element_at(split({{ message }}.body.table, '[.]'), -3)
        end,
        'schema', case
            when size(split({{ message }}.body.table, '[.]')) >= 2
                then try_element_at(split({{ message }}.body.table, '[.]'), -2)
        end,
        'table', try_element_at(split({{ message }}.body.table, '[.]'), -1)
    )
{% endmacro %}

{% macro ogg__key(message, announced_key) %}
    {#- `primary_keys` read off the row image (`before` for d); none: the whole row image. -#}
    case
        when {{ message }}.op = 'd'
            then {{ cdc_lakehouse._ogg_key_of(message ~ '.declared_key', cdc_lakehouse.ogg__before(message), message) }}
        when {{ message }}.op in ('c', 'u')
            then {{ cdc_lakehouse._ogg_key_of(message ~ '.declared_key', cdc_lakehouse.ogg__after(message), message) }}
    end
{% endmacro %}

{% macro _ogg_key_of(declared_key, image_json, message) %}
    {#- The canonical key of an OGG row image (cdc_key_from_image with `primary_keys`). -#}
    {{ cdc_lakehouse.cdc_key_from_image(
        declared_key,
        cdc_lakehouse._cdc_json_map(image_json),
        'transform(' ~ message ~ '.body.primary_keys, key_column -> lower(key_column))'
    ) }}
{% endmacro %}

{% macro ogg__has_row_identity(message) %}
    {#- `primary_keys` names the key: a compressed delete (the key columns only) is not a keyless row. -#}
    (size({{ message }}.body.primary_keys) > 0)
{% endmacro %}

{% macro ogg__folds_row_images() %}
    {#- Compressed updates carry the key and changed columns only: fold them. -#}
    {{ return(true) }}
{% endmacro %}

{% macro ogg__row_images(message) %}
    {#- A primary-key update as a delete and the new key's row, else null. -#}
    {%- set key_change -%}
        case
            when (
                size({{ message }}.body.primary_keys) > 0
                or {{ message }}.declared_key is not null
            )
                and {{ cdc_lakehouse._ogg_key_of(message ~ '.declared_key', 'ogg_images.before', message) }}
                    != {{ cdc_lakehouse._ogg_key_of(message ~ '.declared_key', 'ogg_images.after', message) }}
                then array(
                    named_struct('before', ogg_images.before, 'after', cast(null as string)),
                    named_struct('before', ogg_images.before, 'after', ogg_images.after)
                )
        end
    {%- endset -%}
    {%- set images -%}
        named_struct(
            'before', {{ cdc_lakehouse._ogg_image(message ~ '.body.before') }},
            'after', {{ cdc_lakehouse._ogg_image(message ~ '.body.after') }}
        )
    {%- endset -%}
    case
        when {{ message }}.body.op_type = 'U' and {{ message }}.body.before is not null
            and {{ message }}.body.after is not null
            then {{ cdc_lakehouse._cdc_let(images, 'ogg_images', key_change) }}
    end
{% endmacro %}

{% macro _ogg_image(image_json) %}
    {#- A row image without the `<COL>_isMissing` flags and the columns they flag missing. -#}
    {{ cdc_lakehouse._cdc_json_drop_keys(
        image_json,
        "endswith(json_key, '_isMissing') or coalesce(json_values[concat(json_key, '_isMissing')] = 'true', false)"
    ) }}
{% endmacro %}

{% macro ogg__position(message) %}
    {#- `pos` (digits, left-padded to 30). Null when it is not a number. -#}
    case when {{ message }}.body.pos rlike '^[0-9]{1,30}$' then lpad({{ message }}.body.pos, 30, '0') end
{% endmacro %}

{% macro ogg__is_snapshot(message) %}
    {#- SQL boolean: a snapshot / full-load read. -#}
    false
{% endmacro %}

{% macro ogg__snapshot(message) %}
    {#- SQL expression: the raw snapshot marker, else null. -#}
    cast(null as string)
{% endmacro %}

{% macro ogg__source_ts(message) %}
    {#- SQL timestamp of the change at the source. -#}
    to_timestamp({{ message }}.body.op_ts)
{% endmacro %}

{% macro ogg__emitted_ts(message) %}
    {#- SQL timestamp the connector processed it, else null. -#}
    to_timestamp({{ message }}.body.current_ts)
{% endmacro %}

{% macro ogg__before(message) %}
    {#- The before image, without the `_isMissing` flags and the columns they flag. -#}
    case
        when {{ message }}.row_image is not null then {{ message }}.row_image.before
        else {{ cdc_lakehouse._ogg_image(message ~ '.body.before') }}
    end
{% endmacro %}

{% macro ogg__after(message) %}
    {#- The after image, without the `_isMissing` flags and the columns they flag. -#}
    case
        when {{ message }}.row_image is not null then {{ message }}.row_image.after
        else {{ cdc_lakehouse._ogg_image(message ~ '.body.after') }}
    end
{% endmacro %}

{% macro ogg__patch(message) %}
    {#- An update's image as carried: it may hold only the key and changed columns. -#}
    case when {{ message }}.op = 'u' then {{ message }}.body.after end
{% endmacro %}

{% macro ogg__column_types(message) %}
    {#- Always null: the format carries no column schema. -#}
    cast(null as map<string, struct<type: string, name: string, scale: string, precision: string>>)
{% endmacro %}

{% macro ogg__transaction_id(message) %}
    {#- SQL expression: the source transaction id, else null. -#}
    cast(null as string)
{% endmacro %}

{% macro ogg__error_reason(message) %}
    {#- SQL expression: why the message cannot be read (reason code first), else null. -#}
    case
        when {{ message }}.op is null
            then 'unknown_op: OGG op_type ''' || {{ message }}.body.op_type || ''' is not one of I, U, D, T'
        when {{ message }}.source_table is null
            then 'missing_table: the OGG message has no table'
        when {{ message }}.position is null
            then 'bad_position: the OGG pos is missing or not a number'
        when {{ message }}.op in ('c', 'u')
            and ({{ message }}.after is null or not startswith(ltrim({{ message }}.after), '{'))
            then 'missing_after: OGG op_type ' || {{ message }}.body.op_type || ' without an after image'
        when {{ message }}.op = 'd' and {{ message }}.row_key is null
            then 'delete_without_key: OGG D without a before image holding the key'
        when {{ message }}.op != 't' and {{ message }}.row_key is null
            then 'missing_row_key: the row image lacks a primary_keys column'
    end
{% endmacro %}

{% macro _cdc_json_drop_keys(json_expression, drop) %}
    {#- JSON object text without the keys for which `drop` holds. -#}
    {%- set rebuilt -%}
        case
            when not exists(map_keys(json_values), json_key -> {{ drop }}) then {{ json_expression }}
            else concat('{', array_join(transform(
                filter(map_keys(json_values), json_key -> not ({{ drop }})),
                json_key -> concat(
                    substr(to_json(array(json_key)), 2, length(to_json(array(json_key))) - 2),
                    ':',
                    {{ cdc_lakehouse._cdc_json_raw_value('json_values', 'json_variants', 'json_key') }}
                )
            ), ','), '}')
        end
    {%- endset -%}
    case
        when {{ json_expression }} is not null
            then {{ cdc_lakehouse._cdc_let(
                "from_json(" ~ json_expression ~ ", 'map<string, string>')",
                'json_values',
                cdc_lakehouse._cdc_let("from_json(" ~ json_expression ~ ", 'map<string, variant>')", 'json_variants', rebuilt)
            ) }}
    end
{% endmacro %}
