{% macro _cdc_record_read_through(relation, read_through, when='after', previous=none, extra={}, rows=true, built=false) %}
    {#- Records a write's start or end as table properties of `relation`. -#}
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
