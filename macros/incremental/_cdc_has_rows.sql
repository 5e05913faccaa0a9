{% macro _cdc_has_rows(relation, condition, loaded_after=none) %}
    {#-
        Whether `relation` holds a row meeting `condition`: one `limit 1` probe.
        Whether `relation` holds a row meeting `condition` (loaded after `loaded_after`, a
        timestamp literal such as _cdc_loaded_watermark's): one `limit 1` probe, which the
        parquet reader answers from the new loads' files. A model that has nothing to do
        without such rows skips its run when this is false (cdc_skip_unless_new_input). True at parse
        time and when the relation does not exist yet (nothing is known: the model runs).
    -#}
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
