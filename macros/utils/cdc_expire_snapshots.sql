{% macro cdc_expire_snapshots(older_than_days=7, retain_last=1) -%}
    {%- set cutoff = modules.datetime.datetime.utcnow()
          - modules.datetime.timedelta(days=older_than_days | float) -%}
    {%- set expired = namespace(tables=0) -%}
    {%- for node in graph.nodes.values()
          if node.resource_type == 'model'
          and node.config.materialized in ('cdc_current_state', 'cdc_history')
          and (node.config.get('file_format') or 'parquet') == 'iceberg' -%}
        {%- set state = api.Relation.create(
              database=none, schema=node.schema, identifier=node.alias ~ '__cdc_state',
              type='table') -%}
        {%- if load_relation(state) is none -%}
            {{ log("cdc_expire_snapshots: " ~ state ~ " does not exist (model never built), skipped") }}
        {%- else -%}
            {%- set result = run_query(
                  "call spark_catalog.system.expire_snapshots(table => '" ~ state.schema ~ "."
                  ~ state.identifier ~ "', older_than => timestamp '"
                  ~ cutoff.strftime('%Y-%m-%d %H:%M:%S') ~ "', retain_last => "
                  ~ (retain_last | int) ~ ")") -%}
            {%- set expired.tables = expired.tables + 1 -%}
            {{ log("cdc_expire_snapshots: " ~ state ~ ": deleted "
                  ~ result.rows[0][0] ~ " data files, "
                  ~ result.rows[0][3] ~ " manifests, " ~ result.rows[0][4] ~ " manifest lists",
                  info=True) }}
        {%- endif -%}
    {%- endfor -%}
    {{ log("cdc_expire_snapshots: " ~ expired.tables ~ " Iceberg state tables, snapshots before "
          ~ cutoff.strftime('%Y-%m-%d %H:%M:%S') ~ " UTC expired, the newest "
          ~ (retain_last | int) ~ " kept", info=True) }}
{% endmacro %}
