{% materialization cdc_view, adapter='spark' -%}
  {#-
      dbt-spark's view (dbt's create_or_replace_view), re-created only when something it
      is made of changed (_cdc_view_fingerprint: its SQL, config and contract, and the
      writes of the tables behind it), so that a build with nothing new re-creates no
      view: Spark keeps a view's columns as they were when it was created, so a view is
      re-created whenever a table behind it was written.
  -#}
  {%- set existing = adapter.get_relation(database=database, schema=schema, identifier=model['alias']) -%}
  {%- set fingerprint = cdc_lakehouse._cdc_view_fingerprint(compiled_code) -%}
  {%- if existing is not none and existing.is_view and not should_full_refresh()
        and cdc_lakehouse._cdc_table_properties(existing).get('cdc.view_fingerprint') == fingerprint -%}
    {{ run_hooks(pre_hooks) }}
    {{ log("view: " ~ existing ~ " is unchanged, not re-created") }}
    {{ cdc_lakehouse._cdc_main_unchanged('view unchanged') }}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [existing]}) }}
  {%- endif -%}
  {%- set result = create_or_replace_view() -%}
  {% call statement('cdc_record_view_fingerprint') %}
    alter view {{ this }} set tblproperties ('cdc.view_fingerprint' = '{{ fingerprint }}')
  {% endcall %}
  {%- do cdc_lakehouse._cdc_forget_relation(this) -%}
  {{ return(result) }}
{%- endmaterialization %}
