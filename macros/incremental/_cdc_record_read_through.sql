{% macro _cdc_record_read_through(relation, read_through, when='after', previous=none, extra={}, rows=true, built=false) %}
    {#-
        Records a write's start or end as table properties of `relation`.
        Bookkeeping of a model's writes, as table properties of `relation`: `when='before'`
        marks a write as started (`cdc.reading_through`), `when='after'` records that it
        ended: the table now holds everything its inputs held through `read_through`
        (`cdc.read_through`), it was written by this invocation (`cdc.written_by`) with the
        loads after `previous` (`cdc.previous_read_through`: what the data tests of this
        invocation check, cdc_test_scope), by the model as it is now
        (`cdc.model_fingerprint`). A run that dies between the two leaves `reading_through`
        and `read_through` different, and the next run then reads its watermark from the
        data (_cdc_loaded_watermark). None is recorded as 'unknown' (a rebuild has no
        previous read-through: its tests check every row). `extra`: more properties the
        same statement sets (a cdc_current_state model's `cdc.state_columns`). `rows`: the
        write could add rows, so `cdc.rows_through` moves too (_cdc_rows_through; false for
        a run that read nothing new). `built`: the write created the table, or may have
        changed its columns: `cdc.built_by` (what a view over it depends on,
        _cdc_view_fingerprint) names this invocation; a `cdc_incremental` table that has
        none yet gets one (a gold or history state has none: a view over it follows its
        every write, `cdc.written_by`).
    -#}
    {%- set allowed = ['before', 'after'] -%}
    {%- if when not in allowed -%}
        {{ exceptions.raise_compiler_error(
            "_cdc_record_read_through: when='" ~ when ~ "' is not one of: " ~ allowed | join(', ')) }}
    {%- endif -%}
    {%- set value = read_through | string if read_through is not none else 'unknown' -%}
    {%- if when == 'before' -%}
        {%- set properties = {'cdc.reading_through': 'pending ' ~ invocation_id} -%}
    {%- else -%}
        {%- set properties = {
              'cdc.reading_through': value,
              'cdc.read_through': value,
              'cdc.previous_read_through': previous | string if previous is not none else 'unknown',
              'cdc.written_by': invocation_id,
              'cdc.model_fingerprint': cdc_lakehouse._cdc_model_fingerprint(),
        } -%}
        {%- if rows -%}
            {%- do properties.update({'cdc.rows_through': value}) -%}
        {%- endif -%}
        {%- set cached = cdc_lakehouse._cdc_invocation_cache('table_properties').get(
              cdc_lakehouse._cdc_relation_key(relation)) -%}
        {%- if built or (cached is not none and 'cdc.built_by' not in cached
              and model.config.materialized in ['cdc_incremental', 'incremental']) -%}
            {%- do properties.update({'cdc.built_by': invocation_id}) -%}
        {%- endif -%}
    {%- endif -%}
    {%- do properties.update(extra) -%}
    {% call statement('cdc_record_read_through_' ~ when) %}
        alter table {{ relation }} set tblproperties (
        {%- for name, property in properties.items() %}
            '{{ name }}' = '{{ property }}'{{ ',' if not loop.last }}
        {%- endfor %}
        )
    {% endcall %}
    {#- the run knows what it set: the next read of these properties asks Spark nothing -#}
    {%- do cdc_lakehouse._cdc_remember_properties(relation, properties) -%}
{% endmacro %}
