{% macro _cdc_inputs_fingerprint(node, compiled_sql) %}
    {#-
        An md5 of what a cdc_table_on_change model is built from.
        It covers its compiled SQL and table config, and for each model, seed or source it
        depends on, when the relation was created, and what it read through (_cdc_read_through)
        or else its row count and its newest `_loaded_at` (when it has that column). An input
        that gains rows or is rebuilt changes it; a view input is re-created by each run, so it
        changes on every run (the model is then always rebuilt).
    -#}
    {%- set parts = [compiled_sql] -%}
    {%- for key in ['file_format', 'partition_by', 'clustered_by', 'buckets', 'location_root'] -%}
        {%- do parts.append(key ~ '=' ~ config.get(key)) -%}
    {%- endfor -%}
    {%- for unique_id in node.depends_on.nodes | sort -%}
        {%- set input = graph.nodes.get(unique_id) or graph.sources.get(unique_id) -%}
        {%- set identifier = input.alias if input.resource_type != 'source' else input.identifier -%}
        {%- set relation = adapter.get_relation(
              database=input.database, schema=input.schema, identifier=identifier) -%}
        {%- if relation is none -%}
            {%- do parts.append(unique_id ~ ': missing') -%}
        {%- else -%}
            {#- one describe gives both: the column rows come first, up to the first blank or
                `#` row; the table details (Created Time) after -#}
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
            {#- a table that records what it read through (_cdc_read_through) changes its
                record whenever it gains rows: no need to count them -#}
            {#- (not by relation.type: a relation this run created is cached without one) -#}
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
