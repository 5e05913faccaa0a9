{% macro _cdc_landing_dir() %}
    {#- The landing folder: var `cdc_landing_dir` (env CDC_LANDING_DIR), trimmed. -#}
    {%- set landing_dir = cdc_lakehouse.cdc_var('cdc_landing_dir') | trim -%}
    {%- if landing_dir == '' -%}
        {{ exceptions.raise_compiler_error(
            "cdc_landing_dir is empty: set the dbt var cdc_landing_dir or the environment "
            ~ "variable CDC_LANDING_DIR to the folder that holds the landing files."
        ) }}
    {%- endif -%}
    {{ return(landing_dir) }}
{% endmacro %}
