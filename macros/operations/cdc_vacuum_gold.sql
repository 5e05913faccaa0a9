{% macro cdc_vacuum_gold(select=none, retain_hours=168, dry_run=false) %}
    {#-
        `dbt run-operation cdc_vacuum_gold`: delete the files no version of the last
        `retain_hours` hours reads from every Delta state table of gold (VACUUM), or of the
        models named in `select`.
    -#}
    {%- if retain_hours is none or retain_hours | int < 0 or retain_hours | string != retain_hours | int | string -%}
        {{ exceptions.raise_compiler_error(
            "cdc_vacuum_gold: retain_hours must be a whole number of hours >= 0, got " ~ retain_hours) }}
    {%- endif -%}
    {%- set relations = cdc_lakehouse._cdc_gold_delta_tables(select) -%}
    {%- if relations | length == 0 -%}
        {{ log("cdc_vacuum_gold: no gold state table on Delta.", info=True) }}
    {%- endif -%}
    {%- for relation in relations -%}
        {%- set result = run_query(
              'vacuum ' ~ relation ~ ' retain ' ~ retain_hours | int ~ ' hours'
              ~ (' dry run' if dry_run else '')) -%}
        {{ log("cdc_vacuum_gold: " ~ relation ~ (
            ": " ~ result.rows | length ~ " files would be deleted" if dry_run else ": vacuumed")
            ~ " (retaining " ~ retain_hours | int ~ " hours)", info=True) }}
    {%- endfor -%}
{% endmacro %}
