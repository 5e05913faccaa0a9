{% macro cdc_key_from_image(declared_key, image_map, announced_key=none) -%}
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
