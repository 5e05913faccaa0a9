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
