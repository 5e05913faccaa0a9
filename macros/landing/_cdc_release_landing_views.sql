{% macro _cdc_release_landing_views() %}
    {#-
        Post-hook of bronze: replaces the landing views by empty ones.
        Bronze's post-hook: the landing views this invocation registered (each macro that
        registers one notes it in the invocation cache `landing_views`) replaced by empty
        ones once bronze has read its files, so that a Thrift Server's connection closes do
        not list the landing folder again for them (_cdc_release_temp_view). Returns no SQL.
    -#}
    {%- set registered = cdc_lakehouse._cdc_invocation_cache('landing_views') -%}
    {%- for view_name in registered | list | sort -%}
        {%- do cdc_lakehouse._cdc_release_temp_view(view_name) -%}
    {%- endfor -%}
    {%- do registered.clear() -%}
{% endmacro %}
