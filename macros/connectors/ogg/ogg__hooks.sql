{#-
    The Oracle GoldenGate family (OGG for Big Data JSON formatter): the interface of
    cdc_family_hook. `{"table": "<SCHEMA>.<TABLE>", "op_type": I|U|D|T, "op_ts",
    "current_ts", "pos", "primary_keys", "before", "after"}`. I -> c, U -> u, D -> d,
    T -> t. Ordered by `pos` (the trail position), never by `op_ts`, which can go back.
    A stray `source` object some producers add is ignored.
-#}

{% macro ogg__body_fields() %}
    {{ return({
        'table': 'string', 'op_type': 'string', 'op_ts': 'string', 'current_ts': 'string',
        'pos': 'string', 'primary_keys': 'array<string>', 'before': 'string', 'after': 'string',
    }) }}
{% endmacro %}

{% macro ogg__schema_fields() %}
    {{ return({}) }}
{% endmacro %}

{% macro ogg__detect(message) %}
    (
        {{ message }}.envelope.payload is null
        and {{ message }}.body.op_type is not null
        and {{ message }}.body.table is not null
    )
{% endmacro %}

{% macro ogg__connector(message) %}
    'ogg'
{% endmacro %}

{% macro ogg__message_kind(message) %}
    'change'
{% endmacro %}

{% macro ogg__op(message) %}
    case {{ message }}.body.op_type
        when 'I' then 'c'
        when 'U' then 'u'
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
    {%- set keys = 'transform(' ~ message ~ '.body.primary_keys, key_column -> lower(key_column))' -%}
    case
        when {{ message }}.op = 'd' then {{ cdc_key_from_image(
            message ~ '.source_identity', cdc_json_map(message ~ '.body.before'), keys
        ) }}
        when {{ message }}.op in ('c', 'u') then {{ cdc_key_from_image(
            message ~ '.source_identity', cdc_json_map(message ~ '.body.after'), keys
        ) }}
    end
{% endmacro %}

{% macro ogg__position(message) %}
    {#- `pos` (digits, left-padded to 30). Null when it is not a number. -#}
    case when {{ message }}.body.pos rlike '^[0-9]{1,30}$' then lpad({{ message }}.body.pos, 30, '0') end
{% endmacro %}

{% macro ogg__is_snapshot(message) %}
    false
{% endmacro %}

{% macro ogg__snapshot(message) %}
    cast(null as string)
{% endmacro %}

{% macro ogg__source_ts(message) %}
    to_timestamp({{ message }}.body.op_ts)
{% endmacro %}

{% macro ogg__emitted_ts(message) %}
    to_timestamp({{ message }}.body.current_ts)
{% endmacro %}

{% macro ogg__before(message) %}
    {{ message }}.body.before
{% endmacro %}

{% macro ogg__after(message) %}
    {{ message }}.body.after
{% endmacro %}

{% macro ogg__patch(message) %}
    cast(null as string)
{% endmacro %}

{% macro ogg__column_types(message) %}
    cast(null as map<string, struct<type: string, name: string, scale: string, precision: string>>)
{% endmacro %}

{% macro ogg__transaction_id(message) %}
    cast(null as string)
{% endmacro %}

{% macro ogg__error_reason(message) %}
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
