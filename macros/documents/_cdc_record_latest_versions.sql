{% macro _cdc_record_latest_versions() %}
    {#-
        Post-hook of the fold model: brings its table of latest versions up to date.
        The fold model's post-hook (int_cdc__document_changes): brings its table of latest
        versions (_cdc_latest_versions_relation) up to the model's read-through. It adds
        one row per key of the model's rows loaded after the table's own
        `cdc.read_through` (when it has any: a `limit 1` probe), then records the model's;
        once it holds more than (1 + var `cdc_latest_versions_growth`, default 1.0) times
        its rows at the last compaction, it keeps one row per key again (through a staging
        table): a compaction reads a row per key after at least as many rows were added,
        so its cost follows the batches too. It builds the table from all of the model's
        rows when it does not exist (the pre-hook _cdc_drop_latest_versions drops it before
        a full build) or the model was built from nothing, unless the model holds no row.
        Nothing when it is up to date or the model's read-through is not known (the
        lookup, _cdc_latest_versions_sql, then reads the rows after the table's
        read-through from the model itself); a run that left the model as it is still
        brings the table up to it, and a model that gained no row after the table's
        read-through (`cdc.rows_through`) needs nothing. A run killed between these statements leaves
        the table's old read-through: the next lookup reads those rows from the model,
        and the next post-hook adds them again, which changes no answer (max_by over the
        same versions). Returns no SQL.
    -#}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set model_through = cdc_lakehouse._cdc_read_through(this) -%}
    {%- if model_through is none -%}
        {{ return('') }}
    {%- endif -%}
    {%- set target = cdc_lakehouse._cdc_latest_versions_relation(this) -%}
    {%- set existing = load_relation(target) -%}
    {%- set properties = cdc_lakehouse._cdc_table_properties(existing) if existing is not none else {} -%}
    {%- set registry_through = properties.get('cdc.read_through') -%}
    {%- if registry_through == model_through -%}
        {{ return('') }}
    {%- endif -%}
    {%- set rebuild = registry_through is none
          or cdc_lakehouse._cdc_table_properties(this).get('cdc.previous_read_through', 'unknown') == 'unknown' -%}
    {%- set model_rows_through = cdc_lakehouse._cdc_rows_through(this) -%}
    {%- if not rebuild and model_rows_through is not none and model_rows_through <= registry_through -%}
        {#- the model gained no row since the table's read-through (a run that found
            nothing of its kind): nothing to add, no probe -#}
        {{ return('') }}
    {%- endif -%}
    {%- set compacted_rows = properties.get('cdc.compacted_rows', 0) | int -%}
    {%- if rebuild -%}
        {%- if existing is not none -%}
            {%- do adapter.drop_relation(existing) -%}
        {%- endif -%}
        {%- do cdc_lakehouse._cdc_forget_relation(target) -%}
        {%- if not cdc_lakehouse._cdc_inputs_ever_held(model)
              or not cdc_lakehouse._cdc_has_rows(this, 'true') -%}
            {#- a model without a row (a warehouse without documents) needs no table: its
                lookup reads the model itself, which holds nothing -#}
            {{ return('') }}
        {%- endif -%}
        {%- call statement('_cdc_record_latest_versions') -%}
            create table {{ target }} using parquet as
            {{ cdc_lakehouse._cdc_latest_versions_grouped(this) }}
        {%- endcall -%}
        {%- set compacted_rows = cdc_lakehouse._cdc_latest_versions_rows(target) -%}
    {%- elif cdc_lakehouse._cdc_has_rows(this, 'true', loaded_after="timestamp'" ~ registry_through ~ "'") -%}
        {%- call statement('_cdc_record_latest_versions') -%}
            insert into {{ target }}
            {{ cdc_lakehouse._cdc_latest_versions_grouped(this, registry_through) }}
        {%- endcall -%}
        {%- if cdc_lakehouse._cdc_latest_versions_rows(target)
              > compacted_rows * (1 + cdc_lakehouse.cdc_var('cdc_latest_versions_growth') | float) -%}
            {%- set compacted_rows = cdc_lakehouse._cdc_compact_latest_versions(target) -%}
        {%- endif -%}
    {%- endif -%}
    {%- call statement('cdc_record_latest_versions_through') -%}
        alter table {{ target }} set tblproperties (
            'cdc.read_through' = '{{ model_through }}',
            'cdc.compacted_rows' = '{{ compacted_rows }}'
        )
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_remember_properties(target, {
          'cdc.read_through': model_through, 'cdc.compacted_rows': compacted_rows | string}) -%}
    {{ return('') }}
{% endmacro %}
