{% macro _debezium_unavailable_texts() %}
    {#- The placeholder's forms (var cdc_unavailable_value_placeholder) as SQL string literals, each once; [] without one. -#}
    {%- set placeholder = cdc_lakehouse.cdc_var('cdc_unavailable_value_placeholder') -%}
    {%- set literals = [] -%}
    {%- for form in (cdc_lakehouse._cdc_unavailable_value_forms(placeholder) if placeholder else []) -%}
        {%- set literal = "'" ~ cdc_lakehouse._cdc_escape_string(form.text) ~ "'" -%}
        {%- if literal not in literals -%}{%- do literals.append(literal) -%}{%- endif -%}
    {%- endfor -%}
    {{ return(literals) }}
{% endmacro %}

{% macro _debezium_unavailable_json_forms() %}
    {#- The placeholder's forms as JSON values (a field of an image reads `"name":<form>`); [] without one. -#}
    {%- set placeholder = cdc_lakehouse.cdc_var('cdc_unavailable_value_placeholder') -%}
    {{ return((cdc_lakehouse._cdc_unavailable_value_forms(placeholder) if placeholder else []) | map(attribute='json') | list) }}
{% endmacro %}

{% macro _debezium_holds_unavailable(image) -%}
    {#- SQL boolean: the JSON image holds the placeholder as a field's value, in one of its forms. -#}
    ({%- for form in cdc_lakehouse._debezium_unavailable_json_forms() %}coalesce(instr({{ image }}, ':{{ cdc_lakehouse._cdc_escape_string(form) }}') > 0, false) or {% endfor -%}
    false)
{%- endmacro %}

{% macro _debezium_unavailable_as_null(image) -%}
    {#- SQL: the JSON image with each field still holding the placeholder set to null. -#}
    {%- set expression = namespace(sql=image) -%}
    {%- for form in cdc_lakehouse._debezium_unavailable_json_forms() -%}
        {%- set expression.sql = "replace(" ~ expression.sql ~ ", ':" ~ cdc_lakehouse._cdc_escape_string(form) ~ "', ':null')" -%}
    {%- endfor -%}
    {{ expression.sql }}
{%- endmacro %}

{% macro _debezium_unavailable_filled(image, previous, fill_nulls) -%}
    {#- SQL: the JSON image with its placeholder fields (and its null fields, when fill_nulls) taken from the previous image. -#}
    case
        when {{ image }} is null or {{ previous }} is null then {{ image }}
        else aggregate(
            map_keys(map_filter(
                from_json({{ image }}, 'map<string,string>'),
                {%- set texts = cdc_lakehouse._debezium_unavailable_texts() %}
                (field, text) -> {{ 'text in (' ~ texts | join(', ') ~ ')' if texts else 'false' }}
                    or ({{ fill_nulls }} and text is null))),
            {{ image }},
            (merged, field) -> case
                when array_contains(map_keys(from_json({{ previous }}, 'map<string,variant>')), field)
                    then {{ cdc_lakehouse._cdc_let(
                        "named_struct('key', " ~ cdc_lakehouse._cdc_json_string('field') ~ ", "
                        ~ "'previous', coalesce(to_json(from_json(" ~ previous ~ ", 'map<string,variant>')[field]), 'null'))",
                        'carried_field',
                        cdc_lakehouse._debezium_unavailable_field_filled('merged', 'carried_field', fill_nulls)) }}
                else merged
            end)
    end
{%- endmacro %}

{% macro _debezium_unavailable_field_filled(merged, carried_field, fill_nulls) -%}
    {#- SQL: the JSON text `merged` with one field (`carried_field`: its quoted key and previous value) carried over. -#}
    {%- set expression = namespace(sql=merged) -%}
    {%- for form in cdc_lakehouse._debezium_unavailable_json_forms() -%}
        {%- set expression.sql = "replace(" ~ expression.sql ~ ", concat(" ~ carried_field ~ ".key, ':"
            ~ cdc_lakehouse._cdc_escape_string(form) ~ "'), concat(" ~ carried_field ~ ".key, ':', "
            ~ carried_field ~ ".previous))" -%}
    {%- endfor -%}
    replace({{ expression.sql }},
        concat({{ carried_field }}.key, ':null'),
        if({{ fill_nulls }}, concat({{ carried_field }}.key, ':', {{ carried_field }}.previous), concat({{ carried_field }}.key, ':null')))
{%- endmacro %}

{% macro _debezium_unavailable_fold(changes) -%}
    {#- SQL: the images of one key's changes (sorted), each placeholder taken from the image before; a create takes nothing. -#}
    aggregate(
        {{ changes }},
        named_struct('previous', cast(null as string), 'images', cast(array() as array<string>)),
        (fold_state, change_row) -> {{ cdc_lakehouse._cdc_let(
            "case when change_row._cdc_op = 'c' then change_row.image else "
            ~ cdc_lakehouse._debezium_unavailable_filled(
                'change_row.image', 'fold_state.previous',
                "(change_row._cdc_op = 'd' and coalesce(change_row._cdc_connector = 'postgresql', false))")
            ~ " end",
            'carried_image',
            "named_struct('previous', carried_image, 'images', concat(fold_state.images, array(carried_image)))") }},
        fold_state -> fold_state.images
    )
{%- endmacro %}
