{% macro _cdc_current_view_sql(target_relation, state_relation, columns, unique_key, delete_mode, columns_on_read={}, unpublished_columns=[]) %}
  {#- The published view of a cdc_current_state state table (_cdc_current_rows_sql). -#}
create or replace view {{ target_relation }} as
{{ cdc_lakehouse._cdc_current_rows_sql(state_relation, columns, unique_key, delete_mode, columns_on_read, unpublished_columns) }}
{% endmacro %}

{% macro _cdc_current_rows_sql(state, columns, unique_key, delete_mode, columns_on_read={}, unpublished_columns=[]) %}
  {#- The current rows of a state table: the published view's query. -#}
with

compacted as (

    select * from {{ state }} as state_rows
    where cdc_bucket >= 0

),

changed as (

    select * from {{ state }} as state_rows
    where cdc_bucket = {{ cdc_lakehouse._cdc_partition('delta') }}

),

truncates as (

    select _cdc_source_id, _cdc_sort_key as truncated_before
    from {{ state }} as state_rows
    where cdc_bucket = {{ cdc_lakehouse._cdc_partition('truncate_markers') }}

),

latest_rows as (

    select compacted.*
    from compacted
    left anti join changed
        on {{ cdc_lakehouse._cdc_key_match(unique_key, 'compacted', 'changed') }}

    union all

    select * from changed

),

current_rows as (

    select
      {%- for column in columns %}
      latest_rows.{{ cdc_lakehouse.cdc_quote(column) }},
      {%- endfor %}
      latest_rows._cdc_is_deleted
      or {{ cdc_lakehouse._cdc_hidden_by_truncate('latest_rows._cdc_sort_key', 'truncates.truncated_before') }}
      as _cdc_is_deleted
    from latest_rows
    left outer join truncates
        on latest_rows._cdc_source_id = truncates._cdc_source_id

),

published as (

    select
      {%- for column in columns %}
      {{ cdc_lakehouse.cdc_quote(column) }}{{ "," if not loop.last }}
      {%- endfor %}
      {%- if delete_mode == 'soft' %},
      _cdc_is_deleted,
      case when _cdc_is_deleted then _cdc_source_ts end as _cdc_deleted_at
      {%- endif %}
    from current_rows
    {%- if delete_mode == 'hard' %}
    where not _cdc_is_deleted
    {%- endif %}

),

{%- set on_read = namespace(source='published') %}
{%- for name, expression in columns_on_read.items() %}

on_read_{{ loop.index }} as (

    select *, {{ expression }} as {{ cdc_lakehouse.cdc_quote(name) }}
    from {{ on_read.source }}

),
{%- set on_read.source = 'on_read_' ~ loop.index %}
{%- endfor %}

final as (

    {%- set items = [] -%}
    {%- for column in columns if column | lower not in unpublished_columns -%}
      {%- do items.append(cdc_lakehouse.cdc_quote(column)) -%}
    {%- endfor -%}
    {%- for name in columns_on_read if name | lower not in unpublished_columns -%}
      {%- do items.append(cdc_lakehouse.cdc_quote(name)) -%}
    {%- endfor -%}
    {%- if delete_mode == 'soft' -%}
      {%- do items.extend(['_cdc_is_deleted', '_cdc_deleted_at']) -%}
    {%- endif %}

    select
      {{ items | join(',\n      ') }}
    from {{ on_read.source }}

)

select * from final
{% endmacro %}
