{% macro cdc_typed_change_log(source_model='int_cdc__change_log') %}
    {#-
        The body of a per-table typed change-log model. Everything comes from the
        model's YAML:
          config.meta.cdc_source         the source identity it types: {database,
                                         schema, table}, glob patterns (`*`, `?`) or
                                         lists of them, matched case-insensitively
                                         (cdc_source_contract, cdc_source_matches);
                                         an omitted database or schema is any
                                         (older: cdc_source_table, cdc_source_schema,
                                         cdc_source_database)
          config.meta.cdc_key            the key columns (contract names)
          config.meta.cdc_document       true for a document collection (MongoDB):
                                         extended JSON is unwrapped, and columns may
                                         name dotted paths (`address.city`) in
                                         meta.cdc_source_column
          columns                        the column contract: every column whose name
                                         does not start with `_` needs a data_type;
                                         meta.cdc_encoding / meta.cdc_source_column
                                         are optional
        Missing fields become typed nulls; fields the contract does not declare are
        kept as JSON in _cdc_undeclared_columns; a value that cannot be read as its
        type fills _cdc_error_reason (the row is quarantined, not applied).
    -#}
    {%- set meta = config.get('meta') or {} -%}
    {%- set source = cdc_source_contract(meta, this) -%}
    {%- set key = meta.get('cdc_key') or [] -%}
    {%- set contract = _cdc_contract_columns() -%}
    {%- if execute -%}
        {%- if source is none -%}
            {{ exceptions.raise_compiler_error(
                "Model " ~ this ~ " calls cdc_typed_change_log() but has no "
                ~ "config.meta.cdc_source (the source database, schema and table it types)."
            ) }}
        {%- endif -%}
        {%- if contract | length == 0 -%}
            {{ exceptions.raise_compiler_error(
                "Model " ~ this ~ " has no column contract: list its columns with a "
                ~ "data_type in its YAML file."
            ) }}
        {%- endif -%}
        {%- for key_column in key if key_column not in contract | map(attribute='name') | list -%}
            {{ exceptions.raise_compiler_error(
                "Model " ~ this ~ ": key column '" ~ key_column ~ "' is not in the column "
                ~ "contract (" ~ contract | map(attribute='name') | join(', ') ~ ")."
            ) }}
        {%- endfor -%}
    {%- endif %}

with

changes as (

    select * from {{ ref(source_model) }}
    where {{ cdc_source_matches(
            source or {'table': ''}, '_cdc_source_db', '_cdc_source_schema', '_cdc_source_table'
        ) }}
        -- a document contract types document collections, a row contract tables
        and {{ '' if meta.get('cdc_document') else 'not ' }}{{ cdc_in_list('_cdc_envelope', cdc_document_families()) }}
    {%- if is_incremental() %}
        and _loaded_at > {{ cdc_loaded_watermark(this) }}
    {%- endif %}

),

row_images as (

    select
        *,
        case
            when _cdc_op = 'd'
                then coalesce({{ cdc_json_map('_cdc_before') }}, {{ cdc_json_map('_cdc_key') }})
            when _cdc_op in ('c', 'r', 'u') then {{ cdc_json_map('_cdc_after') }}
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

decoded as (

    select
        *,
        {%- for column in contract %}
        {{ cdc_decode_value(
            column.text,
            column.data_type,
            column.encoding,
            "_cdc_column_types['" ~ column.source_name ~ "']",
            '_cdc_connector'
        ) }} as {{ column.name }},
        {%- endfor %}
        map_filter(
            row_image,
            (k, v) -> not array_contains(
                array({% for column in contract %}'{{ column.source_name }}'{{ ', ' if not loop.last }}{% endfor %}),
                k
            )
        ) as undeclared_columns
    from column_texts

),

final as (

    select
        {%- for column in contract %}
        {{ column.name }},
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
                when {{ column.text }} is not null and {{ column.name }} is null
                    then 'type_mismatch: {{ column.name }} = '
                        || left({{ column.text }}, 100)
                        || ' is not a {{ column.data_type }}'
            end,
            {%- endfor %}
            {%- for key_column in key %}
            case
                when _cdc_op != 't' and {{ key_column }} is null
                    then 'missing_key: key column {{ key_column }} is null'
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

{% macro _cdc_contract_columns() %}
    {#-
        [{name, source_name, value, text, data_type, encoding}] from the model's YAML
        columns (`text`: the name of the column holding `value` in the model's CTEs):
        `value` is the SQL of the column's text in the row image (`row_image` map, or
        `row_json` for a dotted path into a document); with `meta.cdc_document` (a MongoDB
        collection) extended-JSON wrappers are unwrapped first.
    -#}
    {%- set contract = [] -%}
    {%- set meta_document = (config.get('meta') or {}).get('cdc_document', false) -%}
    {%- if execute -%}
        {%- for column in model.columns.values() if not column.name.startswith('_') -%}
            {%- set column_meta = column.meta or {} -%}
            {%- if not column.data_type -%}
                {{ exceptions.raise_compiler_error(
                    "Model " ~ this ~ ": column '" ~ column.name ~ "' has no data_type in "
                    ~ "its YAML; every contract column needs one (bigint, int, smallint, "
                    ~ "boolean, string, double, decimal(p,s), date, timestamp)."
                ) }}
            {%- endif -%}
            {%- set source_name = column_meta.get('cdc_source_column') or column.name -%}
            {%- set nested = '.' in source_name -%}
            {%- set source_name = source_name if nested else source_name | lower -%}
            {#- a dotted path (documents: `address.city`, `items.0.sku`) is read case-exact -#}
            {%- if nested -%}
                {%- set path = [] -%}
                {%- for part in source_name.split('.') -%}
                    {%- do path.append('[' ~ part ~ ']' if part.isdigit() else "['" ~ part ~ "']") -%}
                {%- endfor -%}
                {%- set value = "get_json_object(row_json, '$" ~ cdc_escape_string(path | join('')) ~ "')" -%}
            {%- else -%}
                {%- set value = "row_image['" ~ source_name ~ "']" -%}
            {%- endif -%}
            {%- if meta_document -%}
                {%- set value = cdc_unwrap_extended_json(value) | trim -%}
            {%- endif -%}
            {%- do contract.append({
                'name': column.name | lower,
                'source_name': source_name,
                'value': value,
                'text': 'cdc_text__' ~ column.name | lower,
                'data_type': column.data_type,
                'encoding': column_meta.get('cdc_encoding'),
            }) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(contract) }}
{% endmacro %}
