{% macro cdc_key_from_image(table_expression, image_map, announced_key=none) %}
    {#-
        The canonical key (see cdc_canonical_json_map) of a row image, for messages whose
        Kafka key is unknown: the declared key columns of the table
        (cdc_declared_table_keys), null when the image lacks one of them; else the key
        columns `announced_key` (an array<string> expression of lower-case column names:
        the newest schema-change event's primaryKeyColumnNames), null when the image lacks
        one of them; or, for a table with neither, the whole row image (a keyless table:
        identical rows are one row).
    -#}
    {%- set keys = cdc_declared_table_keys() -%}
    case
    {%- for table, columns in keys.items() %}
        when lower({{ table_expression }}) = '{{ cdc_escape_string(table) }}' then case
            when {% for column in columns | sort %}{{ image_map }}['{{ cdc_escape_string(column) }}'] is not null{{ ' and ' if not loop.last }}{% endfor %}
            then to_json(map_from_arrays(
            array({% for column in columns | sort %}'{{ cdc_escape_string(column) }}'{{ ', ' if not loop.last }}{% endfor %}),
            array({% for column in columns | sort %}{{ image_map }}['{{ cdc_escape_string(column) }}']{{ ', ' if not loop.last }}{% endfor %})
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
{% endmacro %}
