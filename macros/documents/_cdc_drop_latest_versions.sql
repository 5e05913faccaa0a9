{% macro _cdc_drop_latest_versions() %}
    {#- Pre-hook of the fold model: drops its table of latest versions before a full build. -#}
    {%- if execute and not cdc_lakehouse.cdc_is_incremental() -%}
        {%- set registry = cdc_lakehouse._cdc_latest_versions_relation(this) -%}
        {%- for relation in [registry, cdc_lakehouse._cdc_latest_versions_staging(registry)] -%}
            {%- set existing = load_relation(relation) -%}
            {%- if existing is not none -%}
                {%- do adapter.drop_relation(existing) -%}
                {%- do cdc_lakehouse._cdc_forget_relation(existing) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
