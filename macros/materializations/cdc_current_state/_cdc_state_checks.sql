{% macro _cdc_state_checks(plan, batch_sql, kind) %}
  {#- The package's data tests of the model over what this run staged (`batch_sql` none: nothing new), as cdc.check.* properties. -#}
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
