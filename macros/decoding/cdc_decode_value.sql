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

{% macro _cdc_decode_decimal(raw, dtype, encoding, column_type) %}
    {#- decimal(p,s) from any of Debezium's decimal handling modes. -#}
    {%- set accepted = ['precise', 'double', 'string', 'org.apache.kafka.connect.data.Decimal'] -%}
    {%- if encoding and encoding not in accepted -%}
        {{ exceptions.raise_compiler_error(
            "decimal column encoding '" ~ encoding ~ "' is not one of " ~ accepted | join(', ')
        ) }}
    {%- endif -%}
    {%- set target_scale = (dtype.split(',')[1] | replace(')', '') | int) if ',' in dtype else 0 -%}
    {%- set default_mode = cdc_lakehouse.cdc_var('cdc_decimal_handling') -%}
    {%- if default_mode not in ['precise', 'double', 'string'] -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_decimal_handling is '" ~ default_mode ~ "'; accepted: precise, double, string"
        ) }}
    {%- endif -%}
    {%- set mode -%}
        {%- if encoding -%}
            '{{ 'precise' if encoding == 'org.apache.kafka.connect.data.Decimal' else encoding }}'
        {%- else -%}
            case
                when {{ column_type }}.type = 'bytes' then 'precise'
                when {{ column_type }}.type in ('float32', 'float64') then 'double'
                when {{ column_type }}.type = 'string' then 'string'
                when {{ column_type }}.type is null
                    and {{ raw }} rlike '^-?[0-9]+([.][0-9]*)?([eE][-+]?[0-9]+)?$'
                    and {{ raw }} rlike '[.-]'
                    then 'string'
                else '{{ default_mode }}'
            end
        {%- endif -%}
    {%- endset -%}
    {%- set is_variable_scale = "left(ltrim(" ~ raw ~ "), 1) = '{'" -%}
    {%- set decimal_parts -%}
        case
            when {{ is_variable_scale }} then {{ cdc_lakehouse._cdc_variable_scale_parts(raw) }}
            else named_struct(
                'unscaled', try_to_binary({{ raw }}, 'base64'),
                'scale', try_cast(coalesce({{ column_type }}.scale, '{{ target_scale }}') as int)
            )
        end
    {%- endset -%}
    case
        -- a VariableScaleDecimal and a precise decimal share one decoder: the SQL holds it once
        when {{ is_variable_scale }} or {{ mode }} = 'precise' then {{ cdc_lakehouse._cdc_let(
            decimal_parts,
            'decimal_parts_of',
            "try_cast(concat(" ~ cdc_lakehouse._cdc_unscaled_text('decimal_parts_of.unscaled')
            ~ ", 'E', -decimal_parts_of.scale) as " ~ dtype ~ ")"
        ) }}
        when {{ raw }} rlike '^-?[0-9]+([.][0-9]*)?([eE][-+]?[0-9]+)?$'
            then try_cast({{ raw }} as {{ dtype }})
    end
{% endmacro %}
