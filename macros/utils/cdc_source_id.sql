{% macro cdc_source_id(connector, db, schema, table) %}
    {#-
        SQL expression of `_cdc_source_id`, `<db>.<schema>.<table>` (null parts left out):
        lower-cased, except where the source is case-sensitive. Oracle and Db2 fold an
        unquoted schema or table name to upper case and PostgreSQL to lower case: a part
        in that case is lower-cased as always, any other part (a quoted name: `"orders"`
        next to `ORDERS` on Db2) keeps its exact case in double quotes (`""` for a quote),
        so two tables whose names differ only by case never share an id. The database
        part, and every part of other connectors, is lower-cased.
    -#}
    {%- set parts = [] -%}
    {%- for part in [schema, table] -%}
        {%- set quoted = "concat('\"', replace(" ~ part ~ ", '\"', '\"\"'), '\"')" -%}
        {%- do parts.append(
            'case when (' ~ connector ~ " in ('oracle', 'db2') and " ~ part ~ ' != upper(' ~ part ~ '))'
            ~ ' or (' ~ connector ~ " = 'postgresql' and " ~ part ~ ' != lower(' ~ part ~ '))'
            ~ ' then ' ~ quoted ~ ' else lower(' ~ part ~ ') end'
        ) -%}
    {%- endfor -%}
    concat_ws('.', lower({{ db }}), {{ parts | join(', ') }})
{% endmacro %}
