{% macro cdc_optimize_gold(select=none) -%}
    {%- set relations = cdc_lakehouse._cdc_gold_delta_tables(select) -%}
    {%- if relations | length == 0 -%}
        {{ log("cdc_optimize_gold: no gold state table on Delta.", info=True) }}
    {%- endif -%}
    {%- for relation in relations -%}
        {%- do run_query('optimize ' ~ relation) -%}
        {{ log("cdc_optimize_gold: optimized " ~ relation, info=True) }}
    {%- endfor -%}
{% endmacro %}
