{% macro _cdc_release_temp_view(identifier) %}
    {#- Replaces the temporary view `identifier` by an empty one, once its node is done with it. -#}
    {%- if execute -%}
        {%- call statement('cdc_release_temp_view', fetch_result=False) -%}
            create or replace temporary view {{ identifier }} as select 1 as cdc_released where false
        {%- endcall -%}
    {%- endif -%}
{% endmacro %}
