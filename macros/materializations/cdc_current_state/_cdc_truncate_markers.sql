{% macro _cdc_truncates_ctes(changes_from, state_relation) %}
  {#- CTEs of the batch's truncates (`new_truncates`) and of those merged with the stored markers (`truncates`). -#}
new_truncates as (

    select _cdc_source_id, max(_cdc_sort_key) as truncated_before
    from {{ changes_from }}
    where _cdc_op = 't'
    group by _cdc_source_id

),

truncates as (

    select _cdc_source_id, max(truncated_before) as truncated_before
    from (
        select _cdc_source_id, truncated_before from new_truncates
        {%- if state_relation is not none %}
        union all
        select _cdc_source_id, _cdc_sort_key as truncated_before
        from {{ state_relation }}
        where cdc_bucket = {{ cdc_lakehouse._cdc_partition('truncate_markers') }}
        {%- endif %}
    ) as all_truncates
    group by _cdc_source_id

)
{% endmacro %}

{% macro _cdc_truncate_marker_rows(columns) %}
  {#- State rows of the truncate markers (cdc_bucket = -1), one per source table. -#}
    select
        {%- for column in columns %}
        {%- if column == '_cdc_source_id' %}
        _cdc_source_id,
        {%- elif column == '_cdc_sort_key' %}
        truncated_before as _cdc_sort_key,
        {%- elif column == '_cdc_op' %}
        't' as _cdc_op,
        {%- elif column == '_loaded_at' %}
        current_timestamp() as _loaded_at,
        {%- else %}
        null as {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endif %}
        {%- endfor %}
        true as _cdc_is_deleted,
        {{ cdc_lakehouse._cdc_partition('truncate_markers') }} as cdc_bucket
    from truncates
    where exists (select 1 from new_truncates)
{% endmacro %}

{% macro _cdc_hidden_by_truncate(sort_key, truncated_before) -%}
  {#- SQL boolean: a row is hidden by its source table's truncate (or completed snapshot). -#}
  coalesce({{ sort_key }} < {{ truncated_before }}, false)
{%- endmacro %}
