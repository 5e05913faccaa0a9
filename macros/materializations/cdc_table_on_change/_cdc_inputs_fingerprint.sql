{% macro _cdc_inputs_fingerprint(node, compiled_sql) %}
    {#- An md5 of what a cdc_table_on_change model is built from. -#}
    {%- set parts = [compiled_sql] -%}
    {%- for key in ['file_format', 'partition_by', 'clustered_by', 'buckets', 'location_root'] -%}
        {%- do parts.append(key ~ '=' ~ config.get(key)) -%}
    {%- endfor -%}
    {%- for unique_id in node.depends_on.nodes | sort -%}
        {%- set input = graph.nodes.get(unique_id) or graph.sources.get(unique_id) -%}
        {%- set identifier = input.alias if input.resource_type != 'source' else input.identifier -%}
        {%- set relation = adapter.get_relation(
              database=input.database, schema=input.schema, identifier=identifier) -%}
        {%- set state = cdc_lakehouse._cdc_table_state(relation) if relation is not none else none -%}
        {%- set view_fingerprint = cdc_lakehouse._cdc_table_properties(relation).get('cdc.view_fingerprint')
              if relation is not none and input.resource_type == 'model'
                  and input.config.materialized in ['view', 'cdc_view'] else none -%}
        {%- if relation is none -%}
            {%- do parts.append(unique_id ~ ': missing') -%}
        {%- elif state is not none -%}
            {%- do parts.append(unique_id ~ ': ' ~ state) -%}
        {%- elif view_fingerprint -%}
            {%- do parts.append(unique_id ~ ': view ' ~ view_fingerprint) -%}
            {%- for table in cdc_lakehouse._cdc_table_relations([unique_id]) -%}
                {%- set behind = cdc_lakehouse._cdc_table_state(table) if table is not none else 'missing' -%}
                {%- do parts.append(unique_id ~ ' reads ' ~ table ~ ': ' ~ (behind or 'unknown ' ~ invocation_id)) -%}
            {%- endfor -%}
        {%- else -%}
            {%- set described = namespace(at=none, in_columns=true, columns=[]) -%}
            {%- for row in run_query('describe table extended ' ~ relation).rows -%}
                {%- if not row[0] or row[0].startswith('#') -%}
                    {%- set described.in_columns = false -%}
                {%- elif described.in_columns -%}
                    {%- do described.columns.append(row[0] | lower) -%}
                {%- elif row[0] == 'Created Time' -%}
                    {%- set described.at = row[1] -%}
                {%- endif -%}
            {%- endfor -%}
            {#- not by relation.type: a relation this run created is cached without one -#}
            {%- set read_through = cdc_lakehouse._cdc_read_through(relation) -%}
            {%- if read_through is not none -%}
                {%- do parts.append(
                      unique_id ~ ': created ' ~ described.at ~ ', read through ' ~ read_through) -%}
            {%- else -%}
                {%- set newest = 'cast(max(_loaded_at) as string)' if '_loaded_at' in described.columns else 'null' -%}
                {%- set counts = run_query('select count(*), ' ~ newest ~ ' from ' ~ relation).rows[0] -%}
                {%- do parts.append(
                      unique_id ~ ': created ' ~ described.at ~ ', ' ~ counts[0]
                      ~ ' rows through ' ~ counts[1]) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(local_md5(parts | join('\n'))) }}
{% endmacro %}

{% macro _cdc_table_state(relation) %}
    {#- What a table under the run bookkeeping says of its version, without a query. -#}
    {%- set read_through = cdc_lakehouse._cdc_read_through(relation) -%}
    {%- set built_by = cdc_lakehouse._cdc_table_properties(relation).get('cdc.built_by') -%}
    {%- if read_through is none or not built_by -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return('built by ' ~ built_by ~ ', read through ' ~ read_through) }}
{% endmacro %}
