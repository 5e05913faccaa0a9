{% macro _cdc_merge_into_statements(changes_sql, columns, unique_key, state_relation, buckets, retention_days, source_relation=none, truncates=true, purge=true, source_exists=true) %}
  {#- The statements of an incremental cdc_current_state run with MERGE INTO, in order. -#}
  {%- set key_match = [] -%}
  {%- for column in unique_key -%}
    {%- do key_match.append('target.' ~ cdc_lakehouse.cdc_quote(column) ~ ' <=> source.' ~ cdc_lakehouse.cdc_quote(column)) -%}
  {%- endfor -%}
  {%- set statements = [] -%}

  {#- 1. truncate markers: keep the latest truncate of each source table -#}
  {%- set truncate_markers -%}
    merge into {{ state_relation }} as target
    using (
        select _cdc_source_id, max(_cdc_sort_key) as truncated_before
        from ({{ changes_sql }}) as batch
        where _cdc_op = 't'
        group by _cdc_source_id
    ) as source
    on target.cdc_bucket = {{ cdc_lakehouse._cdc_partition('truncate_markers') }} and target._cdc_source_id = source._cdc_source_id
    when matched and source.truncated_before > target._cdc_sort_key then update set
        target._cdc_sort_key = source.truncated_before
    when not matched then insert ({{ cdc_lakehouse._cdc_quote_list(columns) }}, _cdc_is_deleted, cdc_bucket)
    values (
      {%- for column in columns %}
        {%- if column == '_cdc_source_id' %}source._cdc_source_id
        {%- elif column == '_cdc_sort_key' %}source.truncated_before
        {%- elif column == '_cdc_op' %}'t'
        {%- elif column == '_loaded_at' %}current_timestamp()
        {%- else %}null{% endif %}, {% endfor -%}
        true, {{ cdc_lakehouse._cdc_partition('truncate_markers') }}
    )
  {%- endset -%}
  {%- if truncates -%}
    {%- do statements.append(truncate_markers) -%}
  {%- endif -%}

  {#- 2. the latest change of each key in the batch, merged by sort key -#}
  {%- set upsert_source -%}
        select
            {%- for column in columns %}
            ranked.{{ cdc_lakehouse.cdc_quote(column) }},
            {%- endfor %}
            ranked._cdc_op = 'd'
            or {{ cdc_lakehouse._cdc_hidden_by_truncate('ranked._cdc_sort_key', 'markers._cdc_sort_key') }} as _cdc_is_deleted,
            {{ cdc_lakehouse._cdc_bucket(unique_key, buckets, 'ranked.') }} as cdc_bucket
        from (
            select
                *,
                {{ cdc_lakehouse._cdc_latest_change_rank(unique_key, is_deleted="_cdc_op = 'd'") }} as change_rank
            from ({{ changes_sql }}) as batch
            where _cdc_op != 't'
        ) as ranked
        left outer join (
            select _cdc_source_id, _cdc_sort_key
            from {{ state_relation }}
            where cdc_bucket = {{ cdc_lakehouse._cdc_partition('truncate_markers') }}
        ) as markers
            on ranked._cdc_source_id = markers._cdc_source_id
        where ranked.change_rank = 1
  {%- endset -%}
  {%- if source_relation is not none -%}
    {%- if not source_exists -%}
      {%- do statements.append('create table ' ~ source_relation ~ ' using parquet as select * from ' ~ state_relation ~ ' limit 0') -%}
    {%- endif -%}
    {%- do statements.append('insert overwrite table ' ~ source_relation ~ ' ('
          ~ cdc_lakehouse._cdc_quote_list(columns + ['_cdc_is_deleted', 'cdc_bucket']) ~ ') ' ~ upsert_source) -%}
  {%- endif -%}
  {%- set upsert -%}
    merge into {{ state_relation }} as target
    using {% if source_relation is not none %}{{ source_relation }}{% else %}({{ upsert_source }}){% endif %} as source
    on target.cdc_bucket >= 0 and {{ key_match | join(' and ') }}
    when matched and source._cdc_sort_key > target._cdc_sort_key
        and source._cdc_is_deleted and {{ retention_days }} = 0 then delete
    when matched and source._cdc_sort_key > target._cdc_sort_key then update set *
    when not matched and not (source._cdc_is_deleted and {{ retention_days }} = 0) then insert *
  {%- endset -%}
  {%- do statements.append(upsert) -%}

  {#- 3. rows older than their table's latest truncate become tombstones -#}
  {%- set truncate_rows -%}
    merge into {{ state_relation }} as target
    using (
        select _cdc_source_id, _cdc_sort_key as truncated_before
        from {{ state_relation }}
        where cdc_bucket = {{ cdc_lakehouse._cdc_partition('truncate_markers') }}
    ) as source
    on target.cdc_bucket >= 0
        and target._cdc_source_id = source._cdc_source_id
        and {{ cdc_lakehouse._cdc_hidden_by_truncate('target._cdc_sort_key', 'source.truncated_before') }}
        and not target._cdc_is_deleted
    when matched then update set target._cdc_is_deleted = true
  {%- endset -%}
  {%- if truncates -%}
    {%- do statements.append(truncate_rows) -%}
  {%- endif -%}

  {#- 4. forget tombstones past the retention -#}
  {%- set purge_sql -%}
    delete from {{ state_relation }}
    where cdc_bucket >= 0
        and _cdc_is_deleted
        and _loaded_at < current_timestamp() - make_dt_interval({{ retention_days }})
  {%- endset -%}
  {%- if purge -%}
    {%- do statements.append(purge_sql) -%}
  {%- endif -%}
  {{ return(statements) }}
{% endmacro %}
