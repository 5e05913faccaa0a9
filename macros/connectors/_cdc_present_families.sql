{% macro _cdc_present_families(messages_relation, where_sql='true') %}
    {#- The registered families the new messages hold. -#}
    {%- set families = cdc_lakehouse._cdc_connector_families() -%}
    {%- set detect_fields = cdc_lakehouse._cdc_detect_fields() -%}
    {%- if not execute or detect_fields is none -%}
        {{ return(families) }}
    {%- endif -%}
    {%- set body_types = cdc_lakehouse._cdc_union_field_types('body_fields') -%}
    {%- set body_fields = [] -%}
    {%- for name in detect_fields.body -%}
        {%- do body_fields.append('`' ~ name ~ '`: ' ~ body_types[name]) -%}
    {%- endfor -%}
    {%- set schema_types = cdc_lakehouse._cdc_union_field_types('schema_fields') -%}
    {%- set schema_fields = [] -%}
    {%- for name in detect_fields.schema -%}
        {%- do schema_fields.append('`' ~ name ~ '`: ' ~ schema_types[name]) -%}
    {%- endfor -%}
    {%- set body_ddl = body_fields | join(', ') -%}
    {%- set schema_ddl = 'struct<' ~ (schema_fields | join(', ') or '`_cdc_none`: string') ~ '>' -%}
    {%- set flattened = 'debezium_flattened' in families -%}
    {%- set query -%}
        with

        parsed as (

            select
                messages._kafka_topic,
                messages.message_key,
                messages.message_value,
                {%- if flattened %}
                messages._record_format,
                messages.raw_line,
                {%- endif %}
                from_json(
                    messages.message_value,
                    'struct<schema: {{ schema_ddl }}, payload: struct<{{ body_ddl }}>, {{ body_ddl }}, _corrupt_record: string>',
                    map('columnNameOfCorruptRecord', '_corrupt_record')
                ) as envelope,
                case
                    when messages.message_key is not null
                        then from_json(messages.message_key, 'struct<schema: string, payload: string>')
                end as key_envelope
            from {{ messages_relation }} as messages
            where {{ where_sql }}

        ),

        detected as (

            select
                parsed.*,
                {%- if flattened %}
                -- a flattened row the union schema could not parse (stg_cdc__messages, `recovered`)
                case
                    when parsed.envelope._corrupt_record is not null
                        then {{ cdc_lakehouse._debezium_flattened_reparse('parsed.message_value') }}
                end as flattened_body,
                -- a flattened record whose `op` is a header (add.headers): only a record naming it is parsed
                case
                    when parsed._record_format in ('kcat', 'kafka')
                        and instr(parsed.raw_line, '"{{ cdc_lakehouse._debezium_flattened_prefix('header') }}op"') > 0
                        then {{ cdc_lakehouse._debezium_flattened_header_list('parsed.raw_line') }}
                end as kafka_headers,
                {%- endif %}
                {{ cdc_lakehouse._cdc_envelope_body('parsed.envelope', detect_fields.body) }} as body
            from parsed

        )

        -- one pass over the messages: each row names the families it shows
        select distinct found.family
        from detected
            lateral view explode(array(
                case
                    when detected.envelope is not null and detected.envelope._corrupt_record is null
                        then case
                        {%- for family in families %}
                            when {{ cdc_lakehouse.cdc_family_hook(family, 'detect')('detected') }} then '{{ family }}'
                        {%- endfor %}
                        end
                end
                {%- if flattened %},
                case
                    when detected.flattened_body is not null and {{ cdc_lakehouse._debezium_flattened_recovered('detected') }}
                        then 'debezium_flattened'
                end,
                case
                    when ({{ cdc_lakehouse._debezium_flattened_headers('detected.kafka_headers') }}).`{{ cdc_lakehouse._debezium_flattened_prefix() }}op` is not null
                        then 'debezium_flattened'
                end
                {%- endif %}
            )) found as family
        where found.family is not null
    {%- endset -%}
    {%- set found = run_query(query).columns[0].values() -%}
    {%- set present = [] -%}
    {%- for family in families
          if family in found or (cdc_lakehouse.cdc_family_hook(family, 'detect_tombstone')('m') | trim) != 'false' -%}
        {%- do present.append(family) -%}
    {%- endfor -%}
    {{ return(present or families[:1]) }}
{% endmacro %}

{% macro _cdc_detect_fields() %}
    {#- The envelope fields the families' `detect` hooks read. -#}
    {%- set sql = [] -%}
    {%- for family in cdc_lakehouse._cdc_connector_families() -%}
        {%- do sql.append(cdc_lakehouse.cdc_family_hook(family, 'detect')('m') | string) -%}
    {%- endfor -%}
    {%- set text = sql | join('\n') -%}
    {%- set re = modules.re -%}
    {%- if re.search('\\bm\\.(body|envelope)\\b(?!\\s*\\.)', text) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set body_read = re.findall('\\bm\\.body\\.`?(\\w+)', text)
        + re.findall('\\bm\\.envelope\\.payload\\.`?(\\w+)', text)
        + re.findall('\\bm\\.envelope\\.`?(?!payload\\b|schema\\b)(\\w+)', text) -%}
    {%- set schema_read = re.findall('\\bm\\.envelope\\.schema\\.`?(\\w+)', text) -%}
    {%- set body = [] -%}
    {%- for name in cdc_lakehouse._cdc_envelope_body_names() if name in body_read -%}
        {%- do body.append(name) -%}
    {%- endfor -%}
    {%- set schema = [] -%}
    {%- for name in cdc_lakehouse._cdc_union_field_types('schema_fields').keys() if name in schema_read -%}
        {%- do schema.append(name) -%}
    {%- endfor -%}
    {{ return({'body': body, 'schema': schema}) }}
{% endmacro %}
