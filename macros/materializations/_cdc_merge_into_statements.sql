{% macro _cdc_merge_into_statements(changes_sql, columns, unique_key, state_relation, buckets, retention_days) %}
  {#-
      The incremental run of cdc_current_state on a table format with MERGE (delta,
      iceberg, hudi), as a list of statements run in order. Same semantics as the parquet
      path (_cdc_state_merge_sql): the greatest _cdc_sort_key wins per key, deletes keep a
      tombstone, truncate markers (cdc_bucket = -1) turn older rows into tombstones, and
      expired tombstones are deleted. Each statement is atomic on these formats and a
      replayed batch changes nothing, so a killed run is simply run again.
      `changes_sql` returns the batch's readable change rows.
  -#}
  {%- set key_match = [] -%}
  {%- set ranked_key = [] -%}
  {%- for column in unique_key -%}
    {%- do key_match.append('target.' ~ column ~ ' <=> source.' ~ column) -%}
    {%- do ranked_key.append('ranked.' ~ column) -%}
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
    on target.cdc_bucket = -1 and target._cdc_source_id = source._cdc_source_id
    when matched and source.truncated_before > target._cdc_sort_key then update set
        target._cdc_sort_key = source.truncated_before
    when not matched then insert ({{ columns | join(', ') }}, _cdc_is_deleted, cdc_bucket)
    values (
      {%- for column in columns %}
        {%- if column == '_cdc_source_id' %}source._cdc_source_id
        {%- elif column == '_cdc_sort_key' %}source.truncated_before
        {%- elif column == '_cdc_op' %}'t'
        {%- elif column == '_loaded_at' %}current_timestamp()
        {%- else %}null{% endif %}, {% endfor -%}
        true, -1
    )
  {%- endset -%}
  {%- do statements.append(truncate_markers) -%}

  {#- 2. the latest change of each key in the batch, merged by sort key -#}
  {%- set upsert -%}
    merge into {{ state_relation }} as target
    using (
        select
            {%- for column in columns %}
            ranked.{{ column }},
            {%- endfor %}
            ranked._cdc_op = 'd'
            or coalesce(ranked._cdc_sort_key < markers._cdc_sort_key, false) as _cdc_is_deleted,
            pmod(xxhash64({{ ranked_key | join(', ') }}), {{ buckets }}) as cdc_bucket
        from (
            select
                *,
                row_number() over (
                    partition by {{ unique_key | join(', ') }}
                    order by _cdc_sort_key desc, _cdc_op = 'd' desc
                ) as change_rank
            from ({{ changes_sql }}) as batch
            where _cdc_op != 't'
        ) as ranked
        left outer join (
            select _cdc_source_id, _cdc_sort_key
            from {{ state_relation }}
            where cdc_bucket = -1
        ) as markers
            on ranked._cdc_source_id = markers._cdc_source_id
        where ranked.change_rank = 1
    ) as source
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
        where cdc_bucket = -1
    ) as source
    on target.cdc_bucket >= 0
        and target._cdc_source_id = source._cdc_source_id
        and target._cdc_sort_key < source.truncated_before
        and not target._cdc_is_deleted
    when matched then update set target._cdc_is_deleted = true
  {%- endset -%}
  {%- do statements.append(truncate_rows) -%}

  {#- 4. forget tombstones past the retention -#}
  {%- set purge -%}
    delete from {{ state_relation }}
    where cdc_bucket >= 0
        and _cdc_is_deleted
        and _loaded_at < current_timestamp() - make_dt_interval({{ retention_days }})
  {%- endset -%}
  {%- do statements.append(purge) -%}
  {{ return(statements) }}
{% endmacro %}
