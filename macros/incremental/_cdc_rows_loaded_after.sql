{% macro _cdc_rows_loaded_after(relation, since=none) %}
    {#- How many rows of `relation` were loaded after the timestamp text `since` (all: none). -#}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- if cdc_lakehouse._cdc_read_through(relation) is not none -%}
        {%- set properties = cdc_lakehouse._cdc_table_properties(relation) -%}
        {%- set previous = properties.get('cdc.previous_read_through') -%}
        {%- if properties.get('cdc.summary.rows') is not none
              and previous == (since or 'unknown') -%}
            {{ return(properties.get('cdc.summary.rows') | int) }}
        {%- endif -%}
    {%- endif -%}
    {{ return(cdc_lakehouse._cdc_row_count(
        relation, "_loaded_at > timestamp'" ~ since ~ "'" if since else 'true')) }}
{% endmacro %}

{% macro _cdc_row_count(relation, condition='true') %}
    {#- The number of rows of `relation` meeting `condition`. -#}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set query -%}
        select count(*) from {{ relation }} where {{ condition }}
    {%- endset -%}
    {{ return(run_query(query).columns[0].values()[0] | int) }}
{% endmacro %}

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
