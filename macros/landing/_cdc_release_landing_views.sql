{% macro _cdc_release_landing_views() %}
    {#- Post-hook of bronze: replaces the landing views by empty ones. -#}
    {%- set registered = cdc_lakehouse._cdc_invocation_cache('landing_views') -%}
    {%- for view_name in registered | list | sort -%}
        {%- do cdc_lakehouse._cdc_release_temp_view(view_name) -%}
    {%- endfor -%}
    {%- do registered.clear() -%}
{% endmacro %}
