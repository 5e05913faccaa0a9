{% macro cdc_key_from_image(source_identity, image_map, announced_key=none) %}
    {#-
        The canonical key (see cdc_canonical_json_map) of a row image, for messages whose
        Kafka key is unknown: the key columns of the first declared key whose source
        matches the message's (cdc_declared_table_keys, cdc_source_matches), null when the
        image lacks one of them; else the key columns `announced_key` (an array<string>
        expression of lower-case column names: the newest schema-change event's
        primaryKeyColumnNames), null when the image lacks one of them; or, for a table with
        neither, the whole row image (a keyless table: identical rows are one row).
        `source_identity` is a struct expression with fields db, schema, table (a family's
        table_identity). The image is computed once (`cdc_let`, as `key_image`), however
        many key columns read it.
    -#}
    {%- set keys = cdc_declared_table_keys() -%}
    {%- set image_map_expression = image_map -%}
    {%- set image_map = 'key_image' -%}
    {%- set key_case %}
    case
    {%- for entry in keys %}
        {%- set columns = entry.columns | sort %}
        when {{ cdc_source_matches(
            entry.source,
            source_identity ~ '.db',
            source_identity ~ '.schema',
            source_identity ~ '.table'
        ) }} then case
            when {% for column in columns %}{{ image_map }}['{{ cdc_escape_string(column) }}'] is not null{{ ' and ' if not loop.last }}{% endfor %}
            then to_json(map_from_arrays(
            array({% for column in columns %}'{{ cdc_escape_string(column) }}'{{ ', ' if not loop.last }}{% endfor %}),
            array({% for column in columns %}{{ image_map }}['{{ cdc_escape_string(column) }}']{{ ', ' if not loop.last }}{% endfor %})
        )) end
    {%- endfor %}
    {%- if announced_key is not none %}
        when size({{ announced_key }}) > 0 then case
            when forall({{ announced_key }}, key_column -> {{ image_map }}[key_column] is not null)
            then to_json(map_from_arrays(
                array_sort({{ announced_key }}),
                transform(array_sort({{ announced_key }}), key_column -> {{ image_map }}[key_column])
            )) end
    {%- endif %}
        else {{ cdc_canonical_json_map(image_map) }}
    end
    {%- endset -%}
    {{ cdc_let(image_map_expression, 'key_image', key_case) }}
{% endmacro %}
