{% materialization cdc_table_on_change, adapter='spark' %}
  {%- set identifier = model['alias'] -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}
  {%- set target_relation = api.Relation.create(
        identifier=identifier, schema=schema, database=database, type='table') -%}
  {%- set fingerprint = cdc_lakehouse._cdc_inputs_fingerprint(model, compiled_code) -%}
  {%- set up_to_date = old_relation is not none
        and old_relation.is_table
        and not should_full_refresh()
        and cdc_lakehouse._cdc_table_properties(old_relation).get('cdc.inputs_fingerprint') == fingerprint -%}

  {{ run_hooks(pre_hooks) }}

  {% if up_to_date %}
    {{ log("cdc_table_on_change: " ~ target_relation ~ " is up to date with its inputs, not rebuilt") }}
    {{ cdc_lakehouse._cdc_main_unchanged('inputs unchanged') }}
  {% else %}
    {% if old_relation is not none %}
      {{ adapter.drop_relation(old_relation) }}
    {% endif %}
    {% call statement('main') %}
      {{ create_table_as(False, target_relation, compiled_code) }}
    {% endcall %}
    {%- do cdc_lakehouse._cdc_forget_relation(target_relation) -%}
    {{ cdc_lakehouse._cdc_record_read_through(
          target_relation, cdc_lakehouse._cdc_inputs_read_through(), built=true,
          extra={'cdc.inputs_fingerprint': fingerprint, 'cdc.built_by_invocation': invocation_id}) }}
    {% set should_revoke = should_revoke(old_relation, full_refresh_mode=True) %}
    {% do apply_grants(target_relation, grant_config, should_revoke) %}
    {% do persist_docs(target_relation, model) %}
  {% endif %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
