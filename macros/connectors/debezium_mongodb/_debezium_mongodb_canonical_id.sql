{% macro _debezium_mongodb_canonical_id(id_variant) %}
    {#- `{"_id":<id>}`: one text per document identity. -#}
    {%- set numeric_wrappers = ['$numberInt', '$numberLong', '$numberDouble', '$numberDecimal'] -%}
    case
        when {{ id_variant }} is null or is_variant_null({{ id_variant }}) then null
        else concat('{"_id":', case
            when schema_of_variant({{ id_variant }}) in ('TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE')
                or schema_of_variant({{ id_variant }}) like 'DECIMAL(%'
                then {{ cdc_lakehouse._debezium_mongodb_number_text('to_json(' ~ id_variant ~ ')') }}
        {%- for wrapper in numeric_wrappers %}
            when schema_of_variant({{ id_variant }}) like 'OBJECT<`{{ wrapper }}`: %>'
                and {{ cdc_lakehouse._debezium_mongodb_number_text(
                    "variant_get(" ~ id_variant ~ ", '$[\\'" ~ wrapper ~ "\\']', 'string')"
                ) }} is not null
                then {{ cdc_lakehouse._debezium_mongodb_number_text(
                    "variant_get(" ~ id_variant ~ ", '$[\\'" ~ wrapper ~ "\\']', 'string')"
                ) }}
        {%- endfor %}
            when schema_of_variant({{ id_variant }}) = 'OBJECT<`$oid`: STRING>'
                then concat('{"$oid":"', lower(variant_get({{ id_variant }}, '$[\'$oid\']', 'string')), '"}')
            else to_json({{ id_variant }})
        end, '}')
    end
{% endmacro %}

{% macro _debezium_mongodb_number_text(text) %}
    {#- A decimal number's text without trailing fractional zeros (`1000.0` -> `1000`); else the text. -#}
    coalesce(
        regexp_replace(
            regexp_replace(cast(try_cast({{ text }} as decimal(38, 10)) as string), '0+$', ''),
            '[.]$', ''
        ),
        cast(try_cast({{ text }} as double) as string)
    )
{% endmacro %}
