{% macro _cdc_envelope_schema() %}
    {#- The `from_json` schema every landing message is parsed with. -#}
    {%- set body = cdc_lakehouse._cdc_envelope_body_fields() -%}
    {%- set schema = cdc_lakehouse._cdc_union_fields('schema_fields') -%}
    {{- return(
        'struct<'
        ~ 'schema: struct<' ~ schema ~ '>, '
        ~ 'payload: struct<' ~ body ~ '>, '
        ~ body ~ ', '
        ~ '_corrupt_record: string'
        ~ '>'
    ) -}}
{% endmacro %}

{% macro _cdc_envelope_body_fields() %}
    {#- The body fields of every registered family as a DDL field list (`a: t, b: u`). -#}
    {{- return(cdc_lakehouse._cdc_union_fields('body_fields')) -}}
{% endmacro %}

{% macro _cdc_envelope_body_names() %}
    {#- The names of the body fields of every registered family, in schema order. -#}
    {%- set names = [] -%}
    {%- for family in cdc_lakehouse._cdc_connector_families() -%}
        {%- for name in cdc_lakehouse.cdc_family_hook(family, 'body_fields')().keys() if name not in names -%}
            {%- do names.append(name) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{- return(names) -}}
{% endmacro %}

{% macro _cdc_union_fields(hook) %}
    {#- The union of the families' `hook` field maps (_cdc_union_field_types) as a DDL field list. -#}
    {%- set parts = [] -%}
    {%- for name, type in cdc_lakehouse._cdc_union_field_types(hook).items() -%}
        {%- do parts.append(name ~ ': ' ~ type) -%}
    {%- endfor -%}
    {{- return(parts | join(', ')) -}}
{% endmacro %}

{% macro _cdc_union_field_types(hook) %}
    {#- The union of the families' field maps of one hook. -#}
    {%- set fields = {} -%}
    {%- set owners = {} -%}
    {%- for family in cdc_lakehouse._cdc_connector_families() -%}
        {%- for name, type in cdc_lakehouse.cdc_family_hook(family, hook)().items() -%}
            {%- if name in fields and fields[name] != type -%}
                {{ exceptions.raise_compiler_error(
                    "Envelope field '" ~ name ~ "' is typed " ~ fields[name] ~ " by family "
                    ~ owners[name] ~ " and " ~ type ~ " by family " ~ family
                    ~ ": families that share a field must type it alike"
                ) }}
            {%- endif -%}
            {%- do fields.update({name: type}) -%}
            {%- do owners.update({name: owners.get(name, family)}) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{- return(fields) -}}
{% endmacro %}

{% macro _cdc_envelope_body(envelope, names=none) %}
    {#- SQL expression of the message body, wrapped or not. -#}
    coalesce(
        {{ envelope }}.payload,
        named_struct(
        {%- for name in (names if names is not none else cdc_lakehouse._cdc_envelope_body_names()) %}
            '{{ name }}', {{ envelope }}.`{{ name }}`{{ ',' if not loop.last }}
        {%- endfor %}
        )
    )
{% endmacro %}
