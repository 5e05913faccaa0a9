{% macro cdc_optimize_gold(select=none) %}
    {#-
        `dbt run-operation cdc_optimize_gold`: compact the files of every Delta state table
        of gold (OPTIMIZE), or of the models named in `select`.
    -#}
    {%- set relations = cdc_lakehouse._cdc_gold_delta_tables(select) -%}
    {%- if relations | length == 0 -%}
        {{ log("cdc_optimize_gold: no gold state table on Delta.", info=True) }}
    {%- endif -%}
    {%- for relation in relations -%}
        {%- set result = run_query('optimize ' ~ relation) -%}
        {%- set metrics = result.rows[0]['metrics'] if result.rows | length > 0 else none -%}
        {{ log("cdc_optimize_gold: " ~ relation ~ ": " ~ (
            metrics['numFilesRemoved'] ~ " files compacted into " ~ metrics['numFilesAdded']
            if metrics is not none else "optimized"), info=True) }}
    {%- endfor -%}
{% endmacro %}
