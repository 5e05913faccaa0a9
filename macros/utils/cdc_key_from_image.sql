{% macro cdc_key_from_image(declared_key, image_map, announced_key=none) %}
    {#-
        The canonical key (see _cdc_canonical_json_map) of a row image, for messages whose
        Kafka key is unknown: the columns `declared_key` (an array<string> expression of
        sorted lower-case column names, null when no declared key matches the table: the
        `declared_key` column of stg_cdc__messages, _cdc_declared_key), null when the image
        lacks one of them; else the key columns `announced_key` (an array<string>
        expression of lower-case column names: the newest schema-change event's
        primaryKeyColumnNames, or the key columns the message names), null when the image
        lacks one of them; or, for a table with neither, the whole row image (a keyless
        table: identical rows are one row). The image is computed once (`_cdc_let`, as
        `key_image`), however many key columns read it, and so are the sorted announced
        key columns: each is written once in the SQL (a family's key expression is large:
        Alibaba's is a `case`). With announced columns, the two are bound at once, as one
        struct (`key_parts.image`, `key_parts.announced`): nested, the image's lambdas and
        the columns' would add up in the depth of the plan (Spark's analyser resolves one
        level of lambdas a pass). The image's keys are folded already (`_cdc_json_map`), so
        the whole-row key only sorts them (`_cdc_canonical_json_map(..., folded=true)`).
    -#}
    {%- set image_map_expression = image_map -%}
    {%- set image_map = 'key_image' if announced_key is none else 'key_parts.image' -%}
    {%- set announced_columns = 'key_parts.announced' -%}
    {%- set key_case %}
    case
        when {{ declared_key }} is not null then case
            when forall({{ declared_key }}, key_column -> {{ image_map }}[key_column] is not null)
            then to_json(map_from_arrays(
                {{ declared_key }},
                transform({{ declared_key }}, key_column -> {{ image_map }}[key_column])
            )) end
    {%- if announced_key is not none %}
        when size({{ announced_columns }}) > 0 then case
            when forall({{ announced_columns }}, key_column -> {{ image_map }}[key_column] is not null)
            then to_json(map_from_arrays(
                {{ announced_columns }},
                transform({{ announced_columns }}, key_column -> {{ image_map }}[key_column])
            )) end
    {%- endif %}
        else {{ cdc_lakehouse._cdc_canonical_json_map(image_map, folded=true) }}
    end
    {%- endset -%}
    {%- if announced_key is none -%}
        {{ cdc_lakehouse._cdc_let(image_map_expression, 'key_image', key_case) }}
    {%- else -%}
        {{ cdc_lakehouse._cdc_let(
            "named_struct('image', " ~ image_map_expression ~ ", 'announced', array_sort(" ~ announced_key ~ "))",
            'key_parts',
            key_case
        ) }}
    {%- endif -%}
{% endmacro %}
