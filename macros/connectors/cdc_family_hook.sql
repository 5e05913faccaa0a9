{% macro cdc_family_hook(family, hook) %}
    {%- set name = family ~ '__' ~ hook -%}
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
        'has_position', 'detect_tombstone',
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

{% macro cdc_family_default__detect_tombstone(message) %}
    {#- Default of the optional hook `detect_tombstone`: false, a tombstone is no change of this family. -#}
    false
{% endmacro %}
