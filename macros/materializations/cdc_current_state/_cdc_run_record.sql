{% macro _cdc_run_record(state_relation) %}
  {#- The state's run record, from its table properties. -#}
  {%- set properties = cdc_lakehouse._cdc_table_properties(state_relation) -%}
  {%- set watermark = properties.get('cdc.run.loaded_through') -%}
  {{ return({
      'watermark': watermark if watermark not in [none, '', 'none'] else none,
      'staged': properties.get('cdc.run.staged') or none,
      'kind': properties.get('cdc.run.kind'),
      'legacy': watermark is none,
  }) }}
{% endmacro %}

{% macro _cdc_run_properties(state_relation, loaded_through, status, kind, resumed=false) %}
  {#- The table properties that record a run of the state, as a dict. -#}
  {%- if status == 'staged' -%}
    {{ return({'cdc.run.staged': loaded_through | string, 'cdc.run.kind': kind}) }}
  {%- endif -%}
  {%- set properties = cdc_lakehouse._cdc_table_properties(state_relation) if kind != 'full' else {} -%}
  {%- set counted = ['cdc.run.count.' ~ kind] + (['cdc.run.count.resumed'] if resumed else []) -%}
  {%- set record = {
        'cdc.run.staged': '',
        'cdc.run.loaded_through': loaded_through | string if loaded_through is not none else 'none',
        'cdc.run.kind': kind,
  } -%}
  {%- for name in counted -%}
    {%- do record.update({name: (properties.get(name, '0') | int + 1) | string}) -%}
  {%- endfor -%}
  {{ return(record) }}
{% endmacro %}

{% macro _cdc_record_run(state_relation, record) %}
  {#- Sets a run record on the state, in one statement. -#}
  {% call statement('cdc_record_run') %}
    alter table {{ state_relation }} set tblproperties (
    {%- for name, value in record.items() %}
      '{{ name }}' = '{{ value }}'{{ ',' if not loop.last }}
    {%- endfor %}
    )
  {% endcall %}
  {%- do cdc_lakehouse._cdc_remember_properties(state_relation, record) -%}
{% endmacro %}

{% macro _cdc_resume_interrupted_run(plan) %}
  {#- Applies the staged partitions a killed run left behind; returns the watermark. -#}
  {%- set record = cdc_lakehouse._cdc_run_record(plan.state_relation) -%}
  {%- if record.legacy -%}
    {{ return(cdc_lakehouse._cdc_legacy_run_log(plan)) }}
  {%- endif -%}
  {%- if record.staged is not none -%}
    {{ log("Resuming an interrupted run of " ~ this ~ ": re-applying staged buckets", info=True) }}
    {{ cdc_lakehouse._cdc_apply_staging(plan.state_relation, plan.staging_relation, record.kind, 'cdc_resume') }}
    {{ cdc_lakehouse._cdc_record_run(plan.state_relation, cdc_lakehouse._cdc_run_properties(
          plan.state_relation, record.staged, 'applied', record.kind, resumed=true)) }}
    {#- a staged run comes after every applied one -#}
    {{ return(record.staged) }}
  {%- endif -%}
  {{ return(record.watermark) }}
{% endmacro %}

{% macro _cdc_legacy_run_log(plan) %}
  {#- Migrates a state of the old layout: reads its run log once, then drops it. -#}
  {%- set runs = cdc_lakehouse._cdc_existing(plan.runs_relation) -%}
  {%- set watermark = none -%}
  {%- set kind = 'full' -%}
  {%- if runs is not none -%}
    {%- set result = run_query(
        "select status, cast(loaded_through as string), kind, "
        ~ "(select cast(max(loaded_through) as string) from " ~ runs ~ " where status = 'applied') "
        ~ "from " ~ runs ~ " order by recorded_at desc, status desc limit 1") -%}
    {%- if result.rows | length > 0 -%}
      {%- set row = result.rows[0] -%}
      {%- set watermark = row[3] -%}
      {%- set kind = row[2] -%}
      {%- if row[0] == 'staged' and cdc_lakehouse._cdc_existing(plan.staging_relation) is not none -%}
        {{ log("Resuming an interrupted run of " ~ this ~ " (run log of the old layout): re-applying staged buckets", info=True) }}
        {{ cdc_lakehouse._cdc_apply_staging(plan.state_relation, plan.staging_relation, row[2], 'cdc_resume') }}
        {%- set watermark = row[1] -%}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
  {%- set record = {
        'cdc.run.staged': '',
        'cdc.run.loaded_through': watermark | string if watermark is not none else 'none',
        'cdc.run.kind': kind,
  } -%}
  {{ cdc_lakehouse._cdc_record_run(plan.state_relation, record) }}
  {%- if runs is not none -%}
    {{ adapter.drop_relation(runs) }}
  {%- endif -%}
  {{ cdc_lakehouse._cdc_drop_if_present(plan.staging_relation) }}
  {{ cdc_lakehouse._cdc_drop_if_present(plan.batch_relation) }}
  {{ return(watermark) }}
{% endmacro %}

{% macro _cdc_apply_staging(state_relation, staging_relation, kind, statement_name='main', delta_only=false) %}
  {#- Overwrites the state partitions present in the staging table. -#}
  {%- if delta_only -%}
    {% call statement(statement_name) %}
      insert overwrite table {{ state_relation }} partition (cdc_bucket = {{ cdc_lakehouse._cdc_partition('delta') }})
      select * except (cdc_bucket) from {{ staging_relation }}
    {% endcall %}
    {{ return('') }}
  {%- endif -%}
  {% call statement('cdc_set_overwrite_mode') %}
    set spark.sql.sources.partitionOverwriteMode = dynamic
  {% endcall %}
  {% call statement(statement_name) %}
    insert overwrite table {{ state_relation }} partition (cdc_bucket)
    select * from {{ staging_relation }}
  {% endcall %}
  {%- if kind == 'compaction' %}
    {% call statement('cdc_drop_delta') %}
      alter table {{ state_relation }} drop if exists partition (cdc_bucket = {{ cdc_lakehouse._cdc_partition('delta') }})
    {% endcall %}
  {%- endif %}
{% endmacro %}
