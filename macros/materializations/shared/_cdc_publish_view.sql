{% macro _cdc_publish_view(view_sql, state_relation, existing_target, force=false) %}
  {#-
      Creates a state-backed model's published view unless it is up to date.
      Creates a state-backed model's published view (view_sql: its `create or replace
      view` statement) unless it exists and was created from the same SQL, as the state
      table's property `cdc.published_view` (an md5 of view_sql) records: creating a view
      analyses its SQL, a Spark planning pass of up to a second per model and run.
      `force` (a rebuilt state table, whose properties are new) always creates it.
  -#}
  {%- set fingerprint = local_md5(view_sql) -%}
  {%- if force or existing_target is none or existing_target.type != 'view'
        or cdc_lakehouse._cdc_table_properties(state_relation).get('cdc.published_view') != fingerprint %}
    {% call statement('cdc_publish_view') %}
      {{ view_sql }}
    {% endcall %}
    {#- the view's columns are read again; the state's property is known -#}
    {%- do cdc_lakehouse._cdc_forget_relation(this, companions=false) -%}
    {% call statement('cdc_record_published_view') %}
      alter table {{ state_relation }} set tblproperties ('cdc.published_view' = '{{ fingerprint }}')
    {% endcall %}
    {%- do cdc_lakehouse._cdc_remember_properties(state_relation, {'cdc.published_view': fingerprint}) -%}
  {%- endif %}
{% endmacro %}
