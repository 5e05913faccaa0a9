{% materialization cdc_table_on_change, adapter='spark' %}
  {#-
      A table (dbt-spark's `table`: drop, then create as select) rebuilt only when something
      it is built from changed, and otherwise left as it is: for a model that must read the
      whole of its inputs (a history, a window over every version) and would otherwise be
      rebuilt by every run, also the runs that load nothing.

      Each build records a fingerprint of its inputs as the table property
      `cdc.inputs_fingerprint` (_cdc_inputs_fingerprint), and the dbt invocation that built
      it as `cdc.built_by_invocation`: the compiled SQL and the table
      config, and for every model, seed or source it selects from, when that relation was
      created, its row count and its newest `_loaded_at`. A run whose fingerprint equals the
      recorded one does not rebuild; a full refresh, a changed SQL or config, an input that
      gained rows or was rebuilt, or a table without the property always do.
  -#}
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
    {#- the fingerprint and the read-through in one statement -#}
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
