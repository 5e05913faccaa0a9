{% macro cdc_family_hook(family, hook) %}
    {#-
        The macro `<family>__<hook>` of a connector family. Every family implements the
        same hooks with the same signature:

          body_fields()            {name: Spark DDL type} of the message body (the payload,
                                   or the top level of an unwrapped message)
          schema_fields()          {name: Spark DDL type} of the top-level `schema` object
          detect(message)          boolean: the message is this family's
          connector(message)       the connector / format that wrote it
          message_kind(message)    change | transaction | schema_change | heartbeat |
                                   control (anything else this family reads but that
                                   changes no row)
          op(message)              c, u, d, r or t for a change
          table_identity(message)  named_struct(db, schema, table)
          key(message, announced_key)
                                   canonical key JSON of the changed row or document
          position(message)        a string sorting in the source's change order; null
                                   when the message has none or it is not one
          has_position(message)    optional: boolean, the message carries a source
                                   position (whether or not it reads as one); a change
                                   without one is ordered by arrival (stg_cdc__messages:
                                   Kafka partition and offset, else load, file and line),
                                   one whose position does not read is bad_position;
                                   default: true (the family's format always has one)
          is_snapshot(message)     boolean
          snapshot(message)        the raw snapshot marker
          source_ts(message)       timestamp of the change at the source
          emitted_ts(message)      timestamp the connector processed it
          before(message)          row image before the change (JSON text)
          after(message)           row image / document after the change (JSON text)
          patch(message)           JSON text of a partial update (documents), else null
          column_types(message)    map<field, struct<type, name, scale, precision>> from
                                   the message's own schema, else null
          transaction_id(message)  source transaction id
          error_reason(message)    why this family cannot read the message, else null
          row_images(message)      optional: array<struct<before, after>> when one message
                                   carries several row changes (Canal's multi-row `data`, a
                                   key change split into delete + update), else null; each
                                   element becomes its own row (`row_image`, `_cdc_row_index`)
          checkpoint_ts(message)   optional: the sync progress time the message vouches
                                   for (DataWorks `checkpointTime`), else null
          has_row_identity(message)
                                   optional: boolean, the message names its row's key
                                   columns (the envelope's own key list), so the row is
                                   keyed, never keyless, even when an image holds nothing
                                   but the key (a compressed delete); default: false (a
                                   declared key keys a table whatever the family:
                                   stg_cdc__messages checks `declared_key` once)
          folds_row_images()       optional: true when an update's row image may be
                                   partial (only the key and changed columns: OGG's
                                   compressed updates), so int_cdc__document_changes
                                   folds each keyed change onto the row before it;
                                   default: false

        A hook that has a `cdc_family_default__<hook>` macro is optional: a family without
        its own gets the default (a hook added to the interface later does not touch the
        families that need nothing from it).

        `message` is the SQL alias of a row holding the parsed message (`envelope`,
        `body`, `key_envelope`, `message_key`, lineage columns); `error_reason` and `key`
        may also use the common columns computed before them (`op`, `connector`,
        `source_db`, `source_schema`, `source_table`, `position`, `row_key`). Every hook
        but `detect` and `table_identity` may read `source_identity` (the table_identity
        struct) and `declared_key` (array<string>: the sorted key columns declared for that
        table, _cdc_declared_key, null when none; pass it to cdc_key_from_image). Every hook
        but `detect` and `row_images` may read `row_image` (struct<before, after>, null
        when the family's row_images gave none) and `_cdc_row_index` (0 for a message
        of one row change).
    -#}
    {%- set name = family ~ '__' ~ hook -%}
    {#- the project's own macros first (a family of its own), then this package's -#}
    {%- set package = context.get('cdc_lakehouse') or {} -%}
    {%- set default = 'cdc_family_default__' ~ hook -%}
    {%- set macro = context.get(name) or package.get(name)
          or context.get(default) or package.get(default) -%}
    {%- if macro is none -%}
        {{ exceptions.raise_compiler_error(
            "Connector family '" ~ family ~ "' has no macro " ~ name ~ ": a family implements "
            ~ cdc_lakehouse._cdc_family_hooks() | join(', ') ~ ". Registered families: "
            ~ cdc_lakehouse._cdc_connector_families() | join(', ')
        ) }}
    {%- endif -%}
    {{ return(macro) }}
{% endmacro %}

{% macro _cdc_family_hooks() %}
    {#- The hook names every connector family implements (see cdc_family_hook). -#}
    {{ return([
        'body_fields', 'schema_fields', 'detect', 'connector', 'message_kind', 'op',
        'table_identity', 'key', 'position', 'is_snapshot', 'snapshot', 'source_ts',
        'emitted_ts', 'before', 'after', 'patch', 'column_types', 'transaction_id',
        'error_reason', 'row_images', 'checkpoint_ts', 'has_row_identity', 'folds_row_images',
        'has_position',
    ]) }}
{% endmacro %}

{% macro cdc_family_default__row_images(message) %}
    {#- Default of the optional hook `row_images`: null, the message is one row change. -#}
    cast(null as array<struct<before: string, after: string>>)
{% endmacro %}

{% macro cdc_family_default__checkpoint_ts(message) %}
    {#- Default of the optional hook `checkpoint_ts`: null. -#}
    cast(null as timestamp)
{% endmacro %}

{% macro cdc_family_default__has_row_identity(message) %}
    {#- Default of the optional hook `has_row_identity`: the message names no key columns. -#}
    false
{% endmacro %}

{% macro cdc_family_default__has_position(message) %}
    {#- Default of the optional hook `has_position`: true, every message of the format has one. -#}
    true
{% endmacro %}

{% macro cdc_family_default__folds_row_images() %}
    {#- Default of the optional hook `folds_row_images`: false, every image is whole. -#}
    {{ return(false) }}
{% endmacro %}
