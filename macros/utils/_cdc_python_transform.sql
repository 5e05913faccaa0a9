{% macro _cdc_python_transform(function, keys, args, relation, result_name='result') %}
    {#- A query of `relation` through python_udfs/transform.py, by Spark's transform clause. -#}
    {%- set dir = cdc_lakehouse.cdc_var('cdc_python_udfs_dir') -%}
    {%- if not dir -%}
        {#- where dbt runs the project: the package under its packages folder -#}
        {%- set project_dir = invocation_args_dict.get('project_dir') or '.' -%}
        {%- set dir = project_dir ~ ('/python_udfs' if project_name == 'cdc_lakehouse'
            else '/dbt_packages/cdc_lakehouse/python_udfs') -%}
    {%- endif -%}
    {%- set command = [cdc_lakehouse.cdc_var('cdc_python'), dir ~ '/transform.py', function, keys | length] | join(' ') -%}
    {%- set row_format = "row format delimited fields terminated by '\\t' lines terminated by '\\n' null defined as '\\\\N'" -%}
    select
        {%- for name in keys + [result_name] %}
        decode(unbase64({{ name }}), 'utf-8') as {{ name }}{{ ',' if not loop.last }}
        {%- endfor %}
    from (
        select transform(
            {%- for expression in keys + args %}
            {#- base64 of Spark 4.0 breaks lines (spark.sql.chunkBase64String.enabled) -#}
            translate(base64(encode({{ expression }}, 'utf-8')), '\r\n', ''){{ ',' if not loop.last }}
            {%- endfor %}
        )
            {{ row_format }}
            using '{{ cdc_lakehouse._cdc_escape_string(command) }}'
            as ({% for name in keys + [result_name] %}{{ name }} string{{ ', ' if not loop.last }}{% endfor %})
            {{ row_format }}
        from {{ relation }}
    ) as piped
{% endmacro %}
