{% macro cdc_decode_value(raw, data_type, encoding, column_type, connector) %}
    {{- return(adapter.dispatch('cdc_decode_value', 'cdc_lakehouse')(
        raw, data_type, encoding, column_type, connector
    )) -}}
{% endmacro %}

{% macro default__cdc_decode_value(raw, data_type, encoding, column_type, connector) %}
    {#- The default cdc_decode_value: one column value's JSON text as `data_type`. -#}
    {%- set dtype = data_type | lower | replace(' ', '') -%}
    {%- set declared -%}
        {%- if encoding is mapping -%}
            case {{ connector }}
            {%- for name, semantic_name in encoding.items() %}
                when '{{ name | lower }}' then '{{ semantic_name }}'
            {%- endfor %}
            end
        {%- elif encoding -%}
            '{{ encoding }}'
        {%- else -%}
            cast(null as string)
        {%- endif -%}
    {%- endset -%}
    {%- set semantic -%}
        coalesce({{ column_type }}.name, {{ declared }})
    {%- endset -%}
    {%- if dtype in ['bigint', 'int', 'integer', 'smallint', 'tinyint', 'long', 'short'] -%}
        case when {{ raw }} rlike '^-?[0-9]+$' then try_cast({{ raw }} as {{ dtype }}) end
    {%- elif dtype in ['boolean', 'bool'] -%}
        case lower({{ raw }})
            when 'true' then true
            when '1' then true
            when 'false' then false
            when '0' then false
        end
    {%- elif dtype == 'string' and encoding is string and encoding.startswith('array') -%}
        {{ cdc_lakehouse._cdc_decode_string_array(
            raw, encoding[6:-1] if encoding.startswith('array<') else none, column_type
        ) }}
    {%- elif dtype == 'string' -%}
        {{ cdc_lakehouse._cdc_decode_string(raw, semantic, column_type) }}
    {%- elif dtype in ['double', 'float', 'real'] -%}
        case
            when {{ raw }} rlike '^-?[0-9]+([.][0-9]*)?([eE][-+]?[0-9]+)?$'
                or {{ raw }} in ('NaN', 'Infinity', '-Infinity')
                then try_cast({{ raw }} as {{ dtype }})
        end
    {%- elif dtype.startswith('decimal') or dtype.startswith('numeric') -%}
        {%- if encoding is mapping -%}
            {{ exceptions.raise_compiler_error(
                "decimal column encoding must be one of precise, double, string (not a mapping "
                ~ "per connector): the decoder tells the modes apart by value"
            ) }}
        {%- endif -%}
        {{ cdc_lakehouse._cdc_decode_decimal(raw, dtype, encoding, column_type) }}
    {%- elif dtype == 'date' -%}
        {{ cdc_lakehouse._cdc_decode_date(raw, semantic, connector) }}
    {%- elif dtype == 'timestamp' -%}
        {{ cdc_lakehouse._cdc_decode_timestamp(raw, semantic) }}
    {%- else -%}
        {{ exceptions.raise_compiler_error(
            "cdc_decode_value: unsupported data_type '" ~ data_type ~ "'. Accepted: "
            ~ "bigint, int, smallint, tinyint, boolean, string, double, float, "
            ~ "decimal(p,s), date, timestamp."
        ) }}
    {%- endif -%}
{% endmacro %}
