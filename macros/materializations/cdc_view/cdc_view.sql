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

{% macro _cdc_view_fingerprint(compiled_sql) %}
    {#- An md5 of what the view being run is made of. -#}
    {%- set parts = [compiled_sql, cdc_lakehouse._cdc_model_fingerprint()] -%}
    {%- for unique_id in model.depends_on.nodes if not unique_id.startswith('model.') -%}
        {%- do parts.append('unversioned input ' ~ unique_id ~ ': ' ~ invocation_id) -%}
    {%- endfor -%}
    {%- for unique_id in model.depends_on.nodes if unique_id.startswith('model.') -%}
        {%- set input = graph.nodes.get(unique_id) -%}
        {%- if input is not none and input.config.materialized in ['view', 'cdc_view'] -%}
            {%- set view = adapter.get_relation(
                  database=input.database, schema=input.schema, identifier=input.alias) -%}
            {%- set view_fingerprint = cdc_lakehouse._cdc_table_properties(view).get('cdc.view_fingerprint')
                  if view is not none else none -%}
            {%- do parts.append(unique_id ~ ': ' ~ (view_fingerprint or 'unknown ' ~ invocation_id)) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- for relation in cdc_lakehouse._cdc_table_relations(model.depends_on.nodes) -%}
        {%- set properties = cdc_lakehouse._cdc_table_properties(relation) if relation is not none else {} -%}
        {%- set written_by = properties.get('cdc.built_by') or properties.get('cdc.written_by') -%}
        {%- do parts.append(relation ~ ': ' ~ (written_by or 'unknown ' ~ invocation_id)) -%}
    {%- endfor -%}
    {{ return(local_md5(parts | join('\n'))) }}
{% endmacro %}
