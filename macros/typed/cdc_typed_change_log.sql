{% macro cdc_typed_change_log(source_model='int_cdc__change_log') -%}
    {%- set tested = cdc_lakehouse._cdc_unit_tested_node() -%}
    {%- set meta = (tested.config.get('meta') if tested is not none else config.get('meta')) or {} -%}
    {%- set source = cdc_lakehouse.cdc_source_contract(meta, this) -%}
    {%- set key = meta.get('cdc_key') or [] -%}
    {%- set contract = cdc_lakehouse._cdc_contract_columns(tested if tested is not none else model, meta) -%}
    {%- if execute -%}
        {%- if source is none and tested is not none -%}
            {{ exceptions.raise_compiler_error(
                "The unit test of " ~ tested.name ~ " gives no contract: dbt passes a model's "
                ~ "YAML to no unit test, so give its meta and columns in the test's "
                ~ "overrides.vars.cdc_unit_test_model (docs/unit-tests.md)."
            ) }}
        {%- endif -%}
        {%- if source is none -%}
            {{ exceptions.raise_compiler_error(
                "Model " ~ this ~ " calls cdc_lakehouse.cdc_typed_change_log() but has no "
                ~ "config.meta.cdc_source (the source database, schema and table it types)."
            ) }}
        {%- endif -%}
        {%- if contract | length == 0 -%}
            {{ exceptions.raise_compiler_error(
                "Model " ~ this ~ " has no column contract: list its columns with a "
                ~ "data_type in its YAML file."
            ) }}
        {%- endif -%}
        {%- for key_column in key if key_column | lower not in contract | map(attribute='name') | map('lower') | list -%}
            {{ exceptions.raise_compiler_error(
                "Model " ~ this ~ ": key column '" ~ key_column ~ "' is not in the column "
                ~ "contract (" ~ contract | map(attribute='name') | join(', ') ~ ")."
            ) }}
        {%- endfor -%}
    {%- endif %}

with

changes as (

    select * from {{ ref(source_model) }}
    where {{ cdc_lakehouse.cdc_source_matches(
            source or {'table': ''}, '_cdc_source_db', '_cdc_source_schema', '_cdc_source_table'
        ) }}
        -- a document contract types document collections, a row contract tables
        and {{ '' if meta.get('cdc_document') else 'not ' }}{{ cdc_lakehouse._cdc_in_list('_cdc_envelope', cdc_lakehouse._cdc_document_families()) }}
    {%- if cdc_lakehouse.cdc_is_incremental() %}
        and _loaded_at > {{ cdc_lakehouse.cdc_new_input_since() }}
    {%- endif %}

),

row_images as (

    select
        *,
        case
            when _cdc_op = 'd'
                then coalesce({{ cdc_lakehouse._cdc_json_map('_cdc_before') }}, {{ cdc_lakehouse._cdc_json_map('_cdc_key') }})
            when _cdc_op in ('c', 'r', 'u') then {{ cdc_lakehouse._cdc_json_map('_cdc_after') }}
        end as row_image,
        case
            when _cdc_op = 'd' then coalesce(_cdc_before, _cdc_key)
            when _cdc_op in ('c', 'r', 'u') then _cdc_after
        end as row_json
    from changes

),

column_texts as (

    -- each contract column's value as text, read once (decoded and checked below)
    select
        *,
        {%- for column in contract %}
        {{ column.value }} as {{ column.text }}{{ ',' if not loop.last }}
        {%- endfor %}
    from row_images

),

{%- set decoders = cdc_lakehouse._cdc_shared_decoders(contract) %}
{%- if decoders.groups %}

shared_decoders as (

    -- a long decoder shared by several columns is written once, over an array of their values
    select
        *,
        {%- for group in decoders.groups %}
        transform(
            array(
                {%- for column in group.columns %}
                named_struct('raw', {{ column.text }}, 'column_type', {{ column.column_type }}){{ ',' if not loop.last }}
                {%- endfor %}
            ),
            shared_value -> {{ group.decoder }}
        ) as {{ group.name }}{{ ',' if not loop.last }}
        {%- endfor %}
    from column_texts

),
{%- endif %}

decoded as (

    select
        *,
        {%- for column in contract %}
        {{ decoders.expressions[column.name] }} as {{ column.quoted }},
        {%- endfor %}
        map_filter(
            row_image,
            (k, v) -> not array_contains(
                cast(array({% for name in contract | map(attribute='image_keys') | sum(start=[]) %}'{{ cdc_lakehouse._cdc_escape_string(name) }}'{{ ', ' if not loop.last }}{% endfor %}) as array<string>),
                k
            )
        ) as undeclared_columns
    from {{ 'shared_decoders' if decoders.groups else 'column_texts' }}

),

final as (

    select
        {%- for column in contract %}
        {{ column.quoted }},
        {%- endfor %}
        _cdc_op,
        _cdc_connector,
        _cdc_source_id,
        _cdc_source_db,
        _cdc_source_schema,
        _cdc_source_table,
        _cdc_key,
        _cdc_is_partial,
        _cdc_position,
        _cdc_sort_key,
        _cdc_is_snapshot,
        _cdc_source_ts,
        _cdc_transaction_id,
        case
            when size(undeclared_columns) > 0 then to_json(undeclared_columns)
        end as _cdc_undeclared_columns,
        nullif(concat_ws(
            '; ',
            {%- for column in contract %}
            case
                when {{ column.text }} is not null and {{ column.quoted }} is null
                    then 'type_mismatch: {{ cdc_lakehouse._cdc_escape_string(column.name) }} = '
                        || left({{ column.text }}, 100)
                        || ' is not a {{ cdc_lakehouse._cdc_escape_string(column.data_type) }}'
            end,
            {%- endfor %}
            {%- for key_column in key %}
            case
                when _cdc_op != 't' and {{ cdc_lakehouse.cdc_quote(key_column) }} is null
                    then 'missing_key: key column {{ cdc_lakehouse._cdc_escape_string(key_column) }} is null'
            end,
            {%- endfor %}
            cast(null as string)
        ), '') as _cdc_error_reason,
        _message_id,
        _kafka_topic,
        _kafka_partition,
        _kafka_offset,
        _source_file,
        _source_line,
        _loaded_at
    from decoded

)

select * from final
{% endmacro %}

{% macro _cdc_contract_columns(node, meta) %}
    {#- The columns of a typed contract, from `node`'s YAML columns (`meta`: its config's). -#}
    {%- set contract = [] -%}
    {%- set meta_document = meta.get('cdc_document', false) -%}
    {%- if execute -%}
        {%- for column in node.columns.values() if not column.name.startswith('_') -%}
            {%- set column_meta = column.meta or {} -%}
            {%- if not column.data_type -%}
                {{ exceptions.raise_compiler_error(
                    "Model " ~ this ~ ": column '" ~ column.name ~ "' has no data_type in "
                    ~ "its YAML; every contract column needs one (bigint, int, smallint, "
                    ~ "boolean, string, double, decimal(p,s), date, timestamp)."
                ) }}
            {%- endif -%}
            {%- set data_type = column.data_type | string -%}
            {%- if data_type.count('(') != data_type.count(')')
                    or data_type.count('<') != data_type.count('>') -%}
                {#- `{name: balance, data_type: decimal(12,2)}`: YAML's flow mapping splits at the comma -#}
                {{ exceptions.raise_compiler_error(
                    "Model " ~ this ~ ": column '" ~ column.name ~ "' has data_type '"
                    ~ data_type ~ "' in its YAML, not a whole type (unbalanced brackets). "
                    ~ "In a flow mapping ({name: ..., data_type: ...}) a comma ends the value: "
                    ~ "quote the type, data_type: 'decimal(12,2)'."
                ) }}
            {%- endif -%}
            {%- set source_name = column_meta.get('cdc_source_column') or column.name -%}
            {%- set path = column_meta.get('cdc_source_path') -%}
            {%- if path is none and meta_document and column_meta.get('cdc_source_column')
                    and '.' in source_name -%}
                {%- set path = source_name.split('.') -%}
            {%- endif -%}
            {%- if path is not none and path is not string and path | length > 1 -%}
                {#- a path into a document (`address.city`, `items.0.sku`) is read case-exact -#}
                {%- set steps = [] -%}
                {%- for part in path -%}
                    {%- set part = part | string -%}
                    {%- do steps.append('[' ~ part ~ ']' if part.isdigit() else "['" ~ part ~ "']") -%}
                {%- endfor -%}
                {%- set value = "get_json_object(row_json, '$" ~ cdc_lakehouse._cdc_escape_string(steps | join('')) ~ "')" -%}
                {%- set types_key = path | join('.') -%}
                {%- set image_keys = [] -%}
            {%- else -%}
                {%- if path is not none -%}
                    {%- set source_name = (path if path is string else path[0]) | string -%}
                {%- endif -%}
                {%- set folded = source_name | lower -%}
                {%- set value = "row_image['" ~ cdc_lakehouse._cdc_escape_string(folded) ~ "']" -%}
                {%- if folded != source_name -%}
                    {%- set value = "coalesce(row_image['" ~ cdc_lakehouse._cdc_escape_string(source_name) ~ "'], " ~ value ~ ")" -%}
                {%- endif -%}
                {%- set types_key = folded -%}
                {%- set image_keys = [folded] if folded == source_name else [folded, source_name] -%}
            {%- endif -%}
            {%- if meta_document -%}
                {%- set value = cdc_lakehouse.cdc_unwrap_extended_json(value) | trim -%}
            {%- endif -%}
            {%- do contract.append({
                'name': column.name,
                'quoted': cdc_lakehouse.cdc_quote(column.name),
                'source_name': source_name,
                'types_key': types_key,
                'image_keys': image_keys,
                'value': value,
                'text': 'cdc_text__' ~ loop.index,
                'column_type': "_cdc_column_types['" ~ cdc_lakehouse._cdc_escape_string(types_key) ~ "']",
                'data_type': column.data_type,
                'encoding': column_meta.get('cdc_encoding'),
            }) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(contract) }}
{% endmacro %}

{% macro _cdc_shared_decoders(contract) %}
    {#- Each contract column's decoded value; long decoders shared by columns of one type are written once. -#}
    {%- set shared_length = 1000 -%}
    {%- set by_type = {} -%}
    {%- for column in contract -%}
        {%- set type_key = (column.data_type | lower | replace(' ', '')) ~ '|' ~ (column.encoding | tojson) -%}
        {%- do by_type.setdefault(type_key, []).append(column) -%}
    {%- endfor -%}
    {%- set groups = [] -%}
    {%- set expressions = {} -%}
    {%- for type_key, columns in by_type.items() -%}
        {%- set first = columns[0] -%}
        {#- a lone column's decoder is written inline: no need to render the shared form -#}
        {%- set decoder = (cdc_lakehouse.cdc_decode_value(
            'shared_value.raw', first.data_type, first.encoding, 'shared_value.column_type', '_cdc_connector'
        ) | trim) if columns | length > 1 else '' -%}
        {%- if decoder | length > shared_length -%}
            {%- set name = 'cdc_decoded__' ~ (groups | length + 1) -%}
            {%- do groups.append({'name': name, 'columns': columns, 'decoder': decoder}) -%}
            {%- for column in columns -%}
                {%- do expressions.update({column.name: name ~ '[' ~ loop.index0 ~ ']'}) -%}
            {%- endfor -%}
        {%- else -%}
            {%- for column in columns -%}
                {%- do expressions.update({column.name: cdc_lakehouse.cdc_decode_value(
                    column.text, column.data_type, column.encoding, column.column_type, '_cdc_connector'
                ) | trim}) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return({'groups': groups, 'expressions': expressions}) }}
{% endmacro %}
