{% macro cdc_drop_landing_views() %}
    {#-
        Drops the temporary views cdc_landing_files_relation and
        cdc_landing_files_subset_relation registered (bronze's post-hook: no later node reads
        them). A Thrift Server shares one session among its connections and, whenever one
        closes, uncaches every temporary view of it, listing the landing folder again for
        these. Returns no SQL: it runs its statements itself.
    -#}
    {%- if execute -%}
        {%- for view_name in ['_cdc_landing_files', '_cdc_new_landing_files'] -%}
            {%- call statement('cdc_drop_landing_view', fetch_result=False) -%}
                drop view if exists {{ view_name }}
            {%- endcall -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}
