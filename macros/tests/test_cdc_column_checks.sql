{% test cdc_column_checks(model, not_null=none, accepted_values=none) -%}
    {{ config(fail_calc='coalesce(sum(failures), 0)') }}
    {%- set checks = cdc_lakehouse._cdc_column_checks_list(not_null, accepted_values) -%}
    {%- set model_name = cdc_lakehouse._cdc_escape_string(cdc_lakehouse._cdc_tested_model_name()) -%}
    {%- set failing = cdc_lakehouse._cdc_column_checks_failing(checks) -%}
    {%- set recorded = cdc_lakehouse._cdc_recorded_check() %}
with

{%- if recorded is not none %}
counted as (
    {{ cdc_lakehouse._cdc_recorded_rows_sql(recorded, {
          'check_name': 'string', 'column_name': 'string', 'failing_value': 'string',
          'accepted': 'string', 'condition': 'string', 'failing_rows': 'bigint'}) }}
)
{%- else %}
failing_checks as (

    -- every check of a row that fails it, in one pass over the model
    select
        explode(filter(array(
            {{ failing | join(',\n            ') }}
        ), failed -> failed is not null)) as failed
    from {{ model }}

),

counted as (

    select
        failed.check_name,
        failed.column_name,
        failed.failing_value,
        failed.accepted,
        failed.condition,
        count(*) as failing_rows
    from failing_checks
    group by
        failed.check_name,
        failed.column_name,
        failed.failing_value,
        failed.accepted,
        failed.condition

)
{%- endif %}
select
    '{{ model_name }}' as model_name,
    column_name,
    check_name,
    failing_value,
    failing_rows,
    case when check_name = 'accepted_values' then 1 else failing_rows end as failures,
    concat(
        failing_rows,
        case when failing_rows = 1 then ' row of ' else ' rows of ' end,
        '{{ model_name }}',
        case when failing_rows = 1 then ' has ' else ' have ' end,
        case
            when check_name = 'not_null' then concat('a null ', column_name)
            else concat(column_name, ' ', chr(39), failing_value, chr(39), ', not one of: ', accepted)
        end,
        coalesce(concat(' (where ', condition, ')'), '')
    ) as message
from counted
{% endtest %}

{% macro _cdc_column_checks_list(not_null, accepted_values) %}
    {#- The checks of a cdc_column_checks test, one {check, column, values, where} each. -#}
    {%- set checks = [] -%}
    {%- for item in not_null or [] -%}
        {%- if item is mapping and item.get('column') -%}
            {%- do checks.append({'check': 'not_null', 'column': item.column | string, 'values': none, 'where': item.get('where')}) -%}
        {%- elif item is string -%}
            {%- do checks.append({'check': 'not_null', 'column': item, 'values': none, 'where': none}) -%}
        {%- else -%}
            {{ exceptions.raise_compiler_error(
                "cdc_column_checks: each item of not_null is a column name or {column: name, where: condition}, not "
                ~ item) }}
        {%- endif -%}
    {%- endfor -%}
    {%- if accepted_values is not none and accepted_values is not mapping -%}
        {{ exceptions.raise_compiler_error(
            "cdc_column_checks: accepted_values maps each column to its values ({column: [values]}), not "
            ~ accepted_values) }}
    {%- endif -%}
    {%- for column, accepted in (accepted_values or {}).items() -%}
        {%- set values = accepted.get('values') if accepted is mapping else accepted -%}
        {%- if values is string or values is not iterable or values | length == 0 -%}
            {{ exceptions.raise_compiler_error(
                "cdc_column_checks: accepted_values of " ~ column
                ~ " is a list of values or {values: [...], where: condition}, not " ~ accepted) }}
        {%- endif -%}
        {%- do checks.append({'check': 'accepted_values', 'column': column | string, 'values': values | list,
              'where': accepted.get('where') if accepted is mapping else none}) -%}
    {%- endfor -%}
    {%- if not checks -%}
        {{ exceptions.raise_compiler_error("cdc_column_checks: no check given (not_null, accepted_values)") }}
    {%- endif -%}
    {{ return(checks) }}
{% endmacro %}

{% macro _cdc_tested_model_name() %}
    {#- The name of the model a generic test is attached to, '' when none. -#}
    {%- set attached = model.get('attached_node') if model is mapping else none -%}
    {%- if not attached -%}
        {{ return('') }}
    {%- endif -%}
    {%- set node = graph.nodes.get(attached) if execute else none -%}
    {{ return(node.name if node else attached.split('.')[-1]) }}
{% endmacro %}

{% macro _cdc_column_checks_failing(checks) %}
    {#- Per check of _cdc_column_checks_list, a struct of a row that fails it, else null, as SQL. -#}
    {%- set failing = [] -%}
    {%- for check in checks -%}
        {%- set column = cdc_lakehouse.cdc_quote(check.column) -%}
        {%- set condition = '(' ~ check.where ~ ') and ' if check.where else '' -%}
        {%- set found = {} -%}
        {%- if check.check == 'not_null' -%}
            {%- do found.update({'test': column ~ ' is null', 'value': 'cast(null as string)', 'accepted': 'cast(null as string)'}) -%}
        {%- else -%}
            {%- set listed = [] -%}
            {%- set literals = [] -%}
            {%- for value in check['values'] -%}
                {%- do listed.append(value | string) -%}
                {%- do literals.append("'" ~ cdc_lakehouse._cdc_escape_string(value) ~ "'") -%}
            {%- endfor -%}
            {%- do found.update({
                'test': column ~ ' is not null and cast(' ~ column ~ ' as string) not in (' ~ literals | join(', ') ~ ')',
                'value': 'cast(' ~ column ~ ' as string)',
                'accepted': "'" ~ cdc_lakehouse._cdc_escape_string(listed | join(', ')) ~ "'"}) -%}
        {%- endif -%}
        {%- do failing.append(
            'case when ' ~ condition ~ found.test ~ ' then named_struct('
            ~ "'check_name', '" ~ check.check ~ "', "
            ~ "'column_name', '" ~ cdc_lakehouse._cdc_escape_string(check.column) ~ "', "
            ~ "'failing_value', " ~ found.value ~ ", "
            ~ "'accepted', " ~ found.accepted ~ ", "
            ~ "'condition', " ~ ("'" ~ cdc_lakehouse._cdc_escape_string(check.where) ~ "'" if check.where else 'cast(null as string)')
            ~ ') end') -%}
    {%- endfor -%}
    {{ return(failing) }}
{% endmacro %}
