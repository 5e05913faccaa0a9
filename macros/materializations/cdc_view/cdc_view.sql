{% materialization cdc_view, adapter='spark' -%}
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
