{% macro cdc_test_scope(relation) -%}
    {%- set accepted = ['loaded', 'all'] -%}
    {%- set mode = cdc_lakehouse.cdc_var('cdc_test_scope') -%}
    {%- if mode not in accepted -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_test_scope='" ~ mode ~ "' is not one of: " ~ accepted | join(', ')) }}
    {%- endif -%}
    {%- set everything = {'kind': 'all'} -%}
    {%- if not execute or mode == 'all' or flags.WHICH != 'build' or flags.FULL_REFRESH -%}
        {{ return(everything) }}
    {%- endif -%}
    {%- set node = cdc_lakehouse._cdc_node_of(relation) -%}
    {%- if node is none -%}
        {{ return(everything) }}
    {%- endif -%}
    {%- set tables = cdc_lakehouse._cdc_table_relations([node.unique_id]) -%}
    {%- if not tables or none in tables -%}
        {{ return(everything) }}
    {%- endif -%}
    {%- set since = [] -%}
    {%- for table in tables -%}
        {%- set properties = cdc_lakehouse._cdc_table_properties(table) -%}
        {%- if not properties.get('cdc.read_through') -%}
            {{ return(everything) }}
        {%- elif properties.get('cdc.written_by') == invocation_id -%}
            {%- set previous = properties.get('cdc.previous_read_through') -%}
            {%- if not previous or previous == 'unknown' -%}
                {{ return(everything) }}
            {%- endif -%}
            {%- do since.append(previous) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not since -%}
        {{ return({'kind': 'nothing'}) }}
    {%- endif -%}
    {%- set columns = cdc_lakehouse._cdc_column_names(relation) -%}
    {%- if '_loaded_at' not in columns -%}
        {{ return(everything) }}
    {%- endif -%}
    {{ return({'kind': 'since', 'since': "timestamp'" ~ since | min ~ "'", 'since_text': since | min}) }}
{% endmacro %}

{% macro _cdc_node_of(relation) %}
    {#- The model node whose relation is `relation` (matched by schema and alias), or none. -#}
    {%- for node in graph.nodes.values() if node.resource_type == 'model' -%}
        {%- if node.alias | lower == relation.identifier | lower
              and node.schema | lower == relation.schema | lower -%}
            {{ return(node) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}

{% macro cdc_scope_predicate(scope, loaded_at='_loaded_at') -%}
    {%- if scope.kind == 'nothing' -%}
        {{ return('false') }}
    {%- elif scope.kind == 'since' -%}
        {{ return(loaded_at ~ ' > ' ~ scope.since) }}
    {%- endif -%}
    {{ return('true') }}
{% endmacro %}
