{% macro get_where_subquery(relation) -%}
    {{ return(cdc_lakehouse.spark__get_where_subquery(relation)) }}
{%- endmacro %}

{% macro spark__get_where_subquery(relation) -%}
    {#- dbt's `where` test config, with the placeholder of the rows this run loaded. -#}
    {%- set placeholder = '__cdc_loaded_in_this_run__' -%}
    {%- set where = config.get('where', '') or '' -%}
    {%- set test_name = (model.get('test_metadata') or {}).get('name') -%}
    {%- set keys = none -%}
    {%- if placeholder in where -%}
        {%- set scope = {'kind': 'all'} if test_name in cdc_lakehouse._cdc_self_scoped_tests() else cdc_lakehouse.cdc_test_scope(relation) -%}
        {%- if scope.kind == 'nothing' -%}
            {#- nothing to check: the relation's columns, no row, the relation not read -#}
            {%- set columns = [] -%}
            {%- for name in cdc_lakehouse._cdc_column_names(relation) -%}
                {%- do columns.append('null as ' ~ cdc_lakehouse.cdc_quote(name)) -%}
            {%- endfor -%}
            {{ return('(select ' ~ (columns | join(', ') or 'null as nothing') ~ ' where false) dbt_subquery') }}
        {%- endif -%}
        {%- set kwargs = model.test_metadata.kwargs if test_name else {} -%}
        {%- if scope.kind == 'since' and test_name == 'unique' -%}
            {%- set keys = [kwargs.column_name] -%}
        {%- elif scope.kind == 'since' and test_name == 'cdc_unique_key' -%}
            {%- set keys = kwargs.columns -%}
        {%- endif -%}
        {%- if keys -%}
            {#- the keys of the rows in scope, matched null-safely against every row -#}
            {%- set touched_keys = [] -%}
            {%- set conditions = [] -%}
            {%- for key in keys -%}
                {%- do touched_keys.append('(' ~ key ~ ') as __cdc_key_' ~ loop.index) -%}
                {%- do conditions.append('touched.__cdc_key_' ~ loop.index ~ ' <=> (' ~ key ~ ')') -%}
            {%- endfor -%}
            {#- the keys in scope are broadcast when few: not a shuffle of every row -#}
            {%- set stored = load_relation(relation) -%}
            {%- set hint = '/*+ broadcast(touched) */ ' if stored is not none and stored.is_table
                  and cdc_lakehouse._cdc_rows_loaded_after(relation, scope.since_text)
                  <= cdc_lakehouse._cdc_broadcast_row_limit() else '' -%}
            {%- set where = where | replace(placeholder, 'exists (select ' ~ hint ~ '1 from (select '
                  ~ touched_keys | join(', ') ~ ' from ' ~ relation ~ ' where ' ~ cdc_lakehouse.cdc_scope_predicate(scope)
                  ~ ') as touched where ' ~ conditions | join(' and ') ~ ')') -%}
        {%- else -%}
            {%- set where = where | replace(placeholder, cdc_lakehouse.cdc_scope_predicate(scope)) -%}
        {%- endif -%}
    {%- endif -%}
    {%- if where | trim in ['', 'true'] -%}
        {{ return(relation) }}
    {%- endif -%}
    {%- set filtered -%}
        (select * from {{ relation }} where {{ where }}) dbt_subquery
    {%- endset -%}
    {{ return(filtered) }}
{%- endmacro %}

{% macro _cdc_self_scoped_tests() %}
    {#- The generic tests the placeholder leaves whole. -#}
    {{ return(['cdc_position_not_behind_change_log', 'cdc_recency', 'cdc_quiet_sources']) }}
{% endmacro %}
