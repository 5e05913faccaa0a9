{% macro _cdc_view_fingerprint(compiled_sql) %}
    {#-
        An md5 of what the view being run is made of.
        It covers its compiled SQL, its model fingerprint and, for each table behind it, the
        invocation that last wrote it (`cdc.written_by`). An input that is not a model under the
        run bookkeeping (a seed, a source, a table without the properties) makes it unique to
        this invocation: the view is then re-created on every run, as dbt does.
    -#}
    {%- set parts = [compiled_sql, cdc_lakehouse._cdc_model_fingerprint()] -%}
    {%- for unique_id in model.depends_on.nodes if not unique_id.startswith('model.') -%}
        {%- do parts.append('unversioned input ' ~ unique_id ~ ': ' ~ invocation_id) -%}
    {%- endfor -%}
    {%- for relation in cdc_lakehouse._cdc_table_relations(model.depends_on.nodes) -%}
        {%- set written_by = cdc_lakehouse._cdc_table_properties(relation).get('cdc.written_by') if relation is not none else none -%}
        {%- do parts.append(relation ~ ': ' ~ (written_by or 'unknown ' ~ invocation_id)) -%}
    {%- endfor -%}
    {{ return(local_md5(parts | join('\n'))) }}
{% endmacro %}
