{% macro _cdc_publish_view(view_sql, state_relation, existing_target, force=false) %}
  {#- Creates a state-backed model's published view unless it is up to date. -#}
  {%- set fingerprint = local_md5(view_sql) -%}
  {%- if force or existing_target is none or existing_target.type != 'view'
        or cdc_lakehouse._cdc_table_properties(state_relation).get('cdc.published_view') != fingerprint %}
    {% call statement('cdc_publish_view') %}
      {{ view_sql }}
    {% endcall %}
    {%- do cdc_lakehouse._cdc_forget_relation(this, companions=false) -%}
    {% call statement('cdc_record_published_view') %}
      alter table {{ state_relation }} set tblproperties ('cdc.published_view' = '{{ fingerprint }}')
    {% endcall %}
    {%- do cdc_lakehouse._cdc_remember_properties(state_relation, {'cdc.published_view': fingerprint}) -%}
  {%- endif %}
{% endmacro %}
