{% macro cdc_vacuum_gold(select=none, retain_hours=168, dry_run=false) -%}
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
