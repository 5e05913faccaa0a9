{% macro _cdc_write_merge_on_read(plan, sql) %}
  {#- Write path `merge_on_read` (parquet): a delta run or a compaction, staged first. -#}
  {%- set cdc = plan.cdc -%}
  {%- set watermark = cdc_lakehouse._cdc_resume_interrupted_run(plan) -%}
  {%- set questions = cdc_lakehouse._cdc_state_counts_sql(plan.state_relation) -%}
  {%- set batch = cdc_lakehouse._cdc_new_changes(
        plan, sql, watermark, batch_relation=plan.batch_relation, questions=questions) -%}
  {%- if batch.loaded_through is none -%}
    {%- do plan.update({'run_record': cdc_lakehouse._cdc_state_checks(plan, none, 'none')}) -%}
    {{ cdc_lakehouse._cdc_main_unchanged('no new changes') }}
    {{ return('') }}
  {%- endif -%}
  {%- set counts = {'compacted': batch.answers['compacted'] | int, 'delta': batch.answers['delta'] | int} -%}
  {%- set kind = 'compaction' if counts['delta'] + batch.rows > cdc.compaction_ratio * counts['compacted']
        else 'delta' -%}
  {%- if kind == 'compaction' -%}
    {%- set merge_sql = cdc_lakehouse._cdc_state_merge_sql -%}
    {%- set merge_args = [
          batch.sql ~ " union all select " ~ cdc_lakehouse._cdc_quote_list(plan.state_columns)
          ~ " from " ~ plan.state_relation ~ " where cdc_bucket = " ~ cdc_lakehouse._cdc_partition('delta'),
          plan.state_columns, cdc.unique_key, plan.state_relation, cdc.buckets, cdc.retention_days] -%}
    {%- set merge_options = {} -%}
  {%- else -%}
    {%- set merge_sql = cdc_lakehouse._cdc_delta_merge_sql -%}
    {%- set merge_args = [batch.sql, plan.state_columns, cdc.unique_key, plan.state_relation] -%}
    {%- set merge_options = {'small_batch': batch.rows <= cdc_lakehouse._cdc_broadcast_row_limit()} -%}
  {%- endif -%}
  {%- set staged_sql = merge_sql(*merge_args, **merge_options) -%}
  {{ cdc_lakehouse._cdc_stage(plan, staged_sql) }}
  {%- set staged_record = cdc_lakehouse._cdc_run_properties(plan.state_relation, batch.loaded_through, 'staged', kind) -%}
  {{ cdc_lakehouse._cdc_record_run(plan.state_relation, staged_record) }}
  {{ cdc_lakehouse.cdc_after_staging(this) }}
  {%- set checks = cdc_lakehouse._cdc_state_checks(plan, batch.sql, kind) -%}
  {#- a delta run without a truncate stages the delta partition alone -#}
  {{ cdc_lakehouse._cdc_apply_staging(plan.state_relation, plan.staging_relation, kind,
        delta_only=kind == 'delta' and batch.truncates == 0) }}
  {%- set run_record = cdc_lakehouse._cdc_run_properties(plan.state_relation, batch.loaded_through, 'applied', kind) -%}
  {%- do run_record.update(checks) -%}
  {%- do plan.update({'run_record': run_record}) -%}
{% endmacro %}

{% macro _cdc_state_checks(plan, batch_sql, kind) %}
  {#- The package's data tests of the model over what this run staged, as cdc.check.* properties. -#}
  {%- set tests = cdc_lakehouse._cdc_recordable_tests(model, plan.state_columns) -%}
  {%- set properties = {} -%}
  {%- if batch_sql is none -%}
    {#- the run found no new change: it staged nothing, and nothing fails -#}
    {%- for test in tests -%}
      {%- do properties.update({test.key: invocation_id ~ ':0:'}) -%}
    {%- endfor -%}
    {{ return(properties) }}
  {%- endif -%}
  {%- if not tests -%}
    {{ return({}) }}
  {%- endif -%}
  {%- set limit = 20 -%}
  {%- set delta = cdc_lakehouse._cdc_partition('delta') -%}
  {%- set markers = cdc_lakehouse._cdc_partition('truncate_markers') -%}
  {%- set failures = [] -%}
  {%- for test in tests -%}
    {%- set args = test.kwargs -%}
    {%- if test.kind == 'cdc_unique_key' -%}
      {%- set keys = cdc_lakehouse._cdc_quote_list(args.columns) -%}
      {%- set cast_keys = [] -%}
      {%- for column in args.columns -%}
        {%- do cast_keys.append('cast(' ~ cdc_lakehouse.cdc_quote(column) ~ ' as string)') -%}
      {%- endfor -%}
      {%- do failures.append(
            'select ' ~ loop.index0 ~ ' as test_index, array(' ~ cast_keys | join(', ')
            ~ ', cast(count(*) as string)) as failure from staged_live group by ' ~ keys
            ~ ' having count(*) > 1') -%}
    {%- elif test.kind == 'cdc_column_checks' -%}
      {%- set failing = cdc_lakehouse._cdc_column_checks_failing(
            cdc_lakehouse._cdc_column_checks_list(args.get('not_null'), args.get('accepted_values'))) -%}
      {%- do failures.append(
            'select ' ~ loop.index0 ~ ' as test_index, array(failed.check_name, failed.column_name, '
            ~ 'failed.failing_value, failed.accepted, failed.condition, cast(count(*) as string)) as failure '
            ~ 'from (select explode(filter(array(' ~ failing | join(', ') ~ '), failed -> failed is not null)) as failed '
            ~ 'from staged_live) as checked group by failed.check_name, failed.column_name, failed.failing_value, '
            ~ 'failed.accepted, failed.condition') -%}
    {%- else -%}
      {%- set keys = args.key_columns -%}
      {%- set key_list = cdc_lakehouse._cdc_quote_list(keys) -%}
      {%- set cast_keys = [] -%}
      {%- for column in keys -%}
        {%- do cast_keys.append('cast(latest.' ~ cdc_lakehouse.cdc_quote(column) ~ ' as string)') -%}
      {%- endfor -%}
      {%- set position_check -%}
        select {{ loop.index0 }} as test_index, array(
            {{ cast_keys | join(', ') }},
            cast(held._cdc_position as string),
            cast(latest.latest_position as string),
            latest.latest_op,
            cast(truncated.truncated_position as string)
        ) as failure
        from (
            select
                {{ key_list }},
                max(_cdc_sort_key) as latest_sort,
                max_by(_cdc_position, _cdc_sort_key) as latest_position,
                max_by(_cdc_op, _cdc_sort_key) as latest_op,
                first(_cdc_source_id) as _cdc_batch_source
            from batch_rows
            where _cdc_op != 't'
            group by {{ key_list }}
        ) as latest
        left outer join (
            select
                _cdc_source_id,
                max(_cdc_sort_key) as truncated_sort,
                max_by(_cdc_position, _cdc_sort_key) as truncated_position
            from (
                select _cdc_source_id, _cdc_sort_key, _cdc_position from batch_rows where _cdc_op = 't'
                union all
                select _cdc_source_id, _cdc_sort_key, _cdc_position from {{ plan.state_relation }}
                where cdc_bucket = {{ markers }}
            ) as all_truncates
            group by _cdc_source_id
        ) as truncated
            on latest._cdc_batch_source <=> truncated._cdc_source_id
        left outer join (
            select {{ key_list }}, _cdc_sort_key, _cdc_position, _cdc_is_deleted, held_from_stage
            from (
                select *, row_number() over (partition by {{ key_list }} order by held_from_stage desc) as held_rank
                from (
                    select {{ key_list }}, _cdc_sort_key, _cdc_position, _cdc_is_deleted, true as held_from_stage
                    from staged
                    {%- if kind == 'delta' %}
                    union all
                    select {{ key_list }}, _cdc_sort_key, _cdc_position, _cdc_is_deleted, false as held_from_stage
                    from {{ plan.state_relation }} as compacted
                    where cdc_bucket >= 0
                        and exists (select 1 from batch_rows where {{ cdc_lakehouse._cdc_key_match(keys, 'compacted', 'batch_rows') }})
                    {%- endif %}
                ) as candidates
            ) as ranked
            where held_rank = 1
        ) as held
            on {{ cdc_lakehouse._cdc_key_match(keys, 'latest', 'held') }}
        where
            (held._cdc_sort_key is null and latest.latest_op != 'd'
                and not coalesce(truncated.truncated_sort > latest.latest_sort, false))
            or held._cdc_sort_key < latest.latest_sort
            or (latest.latest_op = 'd' and held._cdc_sort_key = latest.latest_sort and not held._cdc_is_deleted)
            or (held.held_from_stage and not held._cdc_is_deleted and truncated.truncated_sort > held._cdc_sort_key)
      {%- endset -%}
      {%- do failures.append(position_check) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set query -%}
    with
    batch_rows as (
        {{ batch_sql }}
    ),
    staged as (
        select * from {{ plan.staging_relation }}
        where cdc_bucket {{ '= ' ~ delta if kind == 'delta' else '>= 0' }}
    ),
    staged_live as (
        select * from staged where not _cdc_is_deleted
    ),
    failures as (
        {{ failures | join('\n        union all\n        ') }}
    )
    select test_index, count(*) as failing, base64(to_json(slice(collect_list(failure), 1, {{ limit }}))) as listed
    from failures
    group by test_index
  {%- endset -%}
  {%- set found = {} -%}
  {%- for row in run_query(query).rows -%}
    {%- do found.update({row[0] | int: row[1] ~ ':' ~ row[2]}) -%}
  {%- endfor -%}
  {%- for test in tests -%}
    {%- do properties.update({test.key: invocation_id ~ ':' ~ found.get(loop.index0, '0:')}) -%}
  {%- endfor -%}
  {{ return(properties) }}
{% endmacro %}

{% macro _cdc_state_counts_sql(state_relation) %}
  {#- Scalar queries of the rows of the compacted buckets and of the delta partition. -#}
  {{ return({
      'compacted': "select count_if(cdc_bucket >= 0) from " ~ state_relation,
      'delta': "select count_if(cdc_bucket = " ~ cdc_lakehouse._cdc_partition('delta') ~ ") from " ~ state_relation,
  }) }}
{% endmacro %}

{% macro _cdc_delta_merge_sql(changes_sql, columns, unique_key, state_relation, small_batch=false) %}
  {#- The new content of the delta partition of a parquet state table. -#}
  {%- set key_list = cdc_lakehouse._cdc_quote_list(unique_key) -%}
with

new_changes as (

    select
        {%- for column in columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        _cdc_op = 'd' as _cdc_is_deleted
    from ({{ changes_sql }}) as changes
    where _cdc_op != 't'

),

stored_delta as (

    select
        {%- for column in columns %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        _cdc_is_deleted
    from {{ state_relation }}
    where cdc_bucket = {{ cdc_lakehouse._cdc_partition('delta') }}

),

compacted as (

    select {% if small_batch %}/*+ broadcast(batch_keys) */{% endif %}
        {%- for column in unique_key %}
        compacted_rows.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        compacted_rows._cdc_sort_key
    from {{ state_relation }} as compacted_rows
    left semi join (
        select distinct {{ key_list }} from new_changes
    ) as batch_keys
        on {{ cdc_lakehouse._cdc_key_match(unique_key, 'compacted_rows', 'batch_keys') }}
    where compacted_rows.cdc_bucket >= 0

),

{{ cdc_lakehouse._cdc_truncates_ctes('(' ~ changes_sql ~ ') as changes', state_relation) }},

ranked as (

    select
        *,
        {{ cdc_lakehouse._cdc_latest_change_rank(unique_key) }} as change_rank
    from (
        select * from new_changes
        union all
        select * from stored_delta
    ) as candidates

),

latest as (

    select * from ranked where change_rank = 1

),

final as (

    select {% if small_batch %}/*+ broadcast(compacted) */{% endif %}
        {%- for column in columns %}
        latest.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        latest._cdc_is_deleted
        or {{ cdc_lakehouse._cdc_hidden_by_truncate('latest._cdc_sort_key', 'truncates.truncated_before') }} as _cdc_is_deleted,
        {{ cdc_lakehouse._cdc_partition('delta') }} as cdc_bucket
    from latest
    left outer join truncates
        on latest._cdc_source_id = truncates._cdc_source_id
    left anti join compacted
        on {{ cdc_lakehouse._cdc_key_match(unique_key, 'compacted', 'latest') }}
        and compacted._cdc_sort_key >= latest._cdc_sort_key

)

select * from final

union all

{{ cdc_lakehouse._cdc_truncate_marker_rows(columns) }}
{% endmacro %}
