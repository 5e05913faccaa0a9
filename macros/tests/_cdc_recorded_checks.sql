{% macro _cdc_recordable_tests(node, state_columns) %}
    {#- The selected data tests of `node` its write records (_cdc_recorded_check), as {key, kind, kwargs}. -#}
    {%- set recordable = ['cdc_unique_key', 'cdc_column_checks', 'cdc_position_not_behind_change_log'] -%}
    {%- if not cdc_lakehouse._cdc_checks_are_recorded() -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set found = [] -%}
    {%- set selected = selected_resources or [] -%}
    {%- for test in graph.nodes.values() if test.resource_type == 'test' and test.attached_node == node.unique_id
          and (not selected or test.unique_id in selected) -%}
        {%- set metadata = test.get('test_metadata') or {} -%}
        {%- set kwargs = metadata.get('kwargs') or {} -%}
        {%- set where = (test.config.get('where') or '') | trim -%}
        {%- set columns = kwargs.get('columns') or kwargs.get('key_columns') or [] -%}
        {%- if metadata.get('name') == 'cdc_column_checks' -%}
            {%- set checks = cdc_lakehouse._cdc_column_checks_list(kwargs.get('not_null'), kwargs.get('accepted_values')) -%}
            {%- set columns = [] -%}
            {%- for check in checks -%}
                {%- do columns.append(check.column if not check.where else '') -%}
            {%- endfor -%}
        {%- endif -%}
        {%- set unknown = columns | reject('in', state_columns) | list -%}
        {%- if metadata.get('name') in recordable and metadata.get('namespace') in [none, 'cdc_lakehouse']
              and where in ['', '__cdc_loaded_in_this_run__'] and columns and not unknown
              and not kwargs.get('change_key_columns') -%}
            {%- do found.append({'key': cdc_lakehouse._cdc_check_property(test.unique_id), 'kind': metadata.name, 'kwargs': kwargs}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(found) }}
{% endmacro %}

{% macro _cdc_recorded_check() %}
    {#- What the write of this build recorded for the data test being compiled, or none. -#}
    {%- if not cdc_lakehouse._cdc_checks_are_recorded() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set node = graph.nodes.get(model.get('attached_node') or '') -%}
    {%- if node is none or node.config.materialized != 'cdc_current_state' -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set state = cdc_lakehouse._cdc_table_relations([node.unique_id]) | first -%}
    {%- if state is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set value = cdc_lakehouse._cdc_table_properties(state).get(cdc_lakehouse._cdc_check_property(model.unique_id)) -%}
    {%- set parts = (value or '').split(':', 2) -%}
    {%- if parts | length != 3 or parts[0] != invocation_id -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return({'failing': parts[1] | int, 'rows': parts[2]}) }}
{% endmacro %}

{% macro _cdc_recorded_rows_sql(recorded, columns) %}
    {#- The rows a write recorded (cdc.check.*), as a query of `columns` ({name: type}). -#}
    {%- set selected = [] -%}
    {%- set nulls = [] -%}
    {%- for name, type in columns.items() -%}
        {%- do selected.append('cast(failure[' ~ loop.index0 ~ '] as ' ~ type ~ ') as ' ~ cdc_lakehouse.cdc_quote(name)) -%}
        {%- do nulls.append('cast(null as ' ~ type ~ ') as ' ~ cdc_lakehouse.cdc_quote(name)) -%}
    {%- endfor -%}
    {%- if recorded.failing == 0 %}
-- the write of this build checked what it wrote: nothing failed
select {{ nulls | join(', ') }} where false
    {%- else %}
-- the write of this build checked what it wrote: {{ recorded.failing }} failing (the first ones listed)
select {{ selected | join(', ') }}
from (select explode(from_json(cast(unbase64('{{ recorded.rows }}') as string), 'array<array<string>>')) as failure) as recorded
    {%- endif %}
{% endmacro %}

{% macro _cdc_checks_are_recorded() %}
    {#- Whether this invocation's gold writes record their checks: a `dbt build` that checks what it loaded. -#}
    {{ return(execute and flags.WHICH == 'build' and not flags.FULL_REFRESH
        and cdc_lakehouse.cdc_var('cdc_test_scope') != 'all') }}
{% endmacro %}

{% macro _cdc_check_property(test_id) %}
    {#- The state's table property that holds what its write recorded of the test `test_id`. -#}
    {{ return('cdc.check.' ~ local_md5(test_id)[:16]) }}
{% endmacro %}
