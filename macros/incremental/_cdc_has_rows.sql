{% macro _cdc_has_rows(relation, condition, loaded_after=none) %}
    {#- Whether `relation` holds a row meeting `condition`: one `limit 1` probe. -#}
    {%- if not execute -%}
        {{ return(true) }}
    {%- endif -%}
    {%- if load_relation(relation) is none -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set probe -%}
        select 1 from {{ relation }}
        where ({{ condition }})
        {%- if loaded_after is not none %} and _loaded_at > {{ loaded_after }}{% endif %}
        limit 1
    {%- endset -%}
    {{ return(run_query(probe).rows | length > 0) }}
{% endmacro %}
