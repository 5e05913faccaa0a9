{% macro cdc_test_scope(relation) %}
    {#-
        Which rows of `relation` the data tests of this invocation check:
          {'kind': 'all'}                      every row: var cdc_test_scope = 'all', a
                                               `dbt test` or any command but `dbt build`,
                                               a full refresh, a relation rebuilt by this
                                               run or not under the run bookkeeping
          {'kind': 'nothing'}                  none: `dbt build` wrote none of the tables
                                               behind it (they were checked when written)
          {'kind': 'since', 'since': literal}  the rows loaded by this invocation:
                                               `_loaded_at` after what the tables behind it
                                               had read before it (_cdc_record_read_through)
    -#}
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
    {{ return({'kind': 'since', 'since': "timestamp'" ~ since | min ~ "'"}) }}
{% endmacro %}
