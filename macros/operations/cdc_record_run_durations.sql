{% macro cdc_record_run_durations(results) -%}
    {%- if not execute or not cdc_lakehouse.cdc_var('cdc_record_run_durations')
          or flags.WHICH not in ('build', 'run') -%}
        {{ return('') }}
    {%- endif -%}
    {%- set layers = {} -%}
    {%- for result in results if result.node.resource_type in ('model', 'test')
          and result.execution_time is not none -%}
        {%- set layer = 'tests' if result.node.resource_type == 'test'
            else (result.node.fqn[1] if result.node.fqn | length > 2 else 'models') -%}
        {%- set seen = layers.get(layer, [0, 0.0]) -%}
        {%- do layers.update({layer: [seen[0] + 1, seen[1] + result.execution_time]}) -%}
    {%- endfor -%}
    {%- set history = graph.nodes.get('model.cdc_lakehouse.cdc_run_history') -%}
    {%- if not layers or history is none -%}
        {{ return('') }}
    {%- endif -%}
    {%- set relation = api.Relation.create(
        database=history.database, schema=history.schema, identifier='cdc_run_durations'
    ) -%}
    {%- if adapter.get_relation(relation.database, relation.schema, relation.identifier) is none -%}
        {%- do adapter.create_schema(relation) -%}
        {%- call statement('cdc_run_durations_table') -%}
            create table if not exists {{ relation }} (
                _load_id string,
                run_started_at timestamp,
                layer string,
                nodes int,
                seconds double
            ) using parquet
        {%- endcall -%}
    {%- endif -%}
    {%- set rows = [] -%}
    {%- for layer, figures in layers | dictsort -%}
        {%- do rows.append("('" ~ invocation_id ~ "', timestamp'" ~ run_started_at.strftime('%Y-%m-%d %H:%M:%S.%f')
            ~ "', '" ~ cdc_lakehouse._cdc_escape_string(layer) ~ "', " ~ figures[0] ~ ", " ~ figures[1] ~ ")") -%}
    {%- endfor -%}
    insert into {{ relation }} values {{ rows | join(', ') }}
{% endmacro %}
