{% macro _cdc_newest_loaded_at(relation, after=none) %}
    {#-
        The newest `_loaded_at` of `relation` as text.
        Only rows after `after` count (a timestamp literal that lets parquet statistics skip
        older files). None when the relation has no such column or no rows.
    -#}
    {%- if '_loaded_at' not in cdc_lakehouse._cdc_column_names(relation) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set newest = run_query(
        "select cast(max(_loaded_at) as string) from " ~ relation
        ~ (" where _loaded_at > " ~ after if after else "")
    ).columns[0].values()[0] -%}
    {{ return(newest) }}
{% endmacro %}
