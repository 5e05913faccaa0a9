{% macro _cdc_summarise_write(relation, read_through, since=none) %}
    {#-
        After a write: what it is complete through, and what its rows hold, as properties.
        A model whose config `cdc_summary` maps kind names to SQL conditions over its
        columns (stg_cdc__messages: keyless rows, truncates, control messages, ...; bronze:
        schema-change events) has every write summarised by one query over the rows it
        added (loaded after the timestamp text `since`; every row on a rebuild, `since`
        none): `cdc.summary.rows` (how many), `cdc.summary.kinds` (the kinds summarised) and,
        per kind the rows held, `cdc.summary.<kind>` = the write's read-through ('none' on
        a rebuild for a kind they did not hold; an append leaves an absent kind's as it
        was). Models that read only some kinds (config `cdc_input_kinds`) then know from
        these properties, without a query, that nothing of theirs arrived
        (_cdc_rows_through). The same query gives the newest `_loaded_at` when
        `read_through` is none (bronze: its input is the landing folder). Returns
        {'read_through': `read_through` or that newest (else `since`), 'properties': {...}}.
        Without `cdc_summary`: no properties, and the newest `_loaded_at` as
        _cdc_newest_loaded_at finds it when needed.
    -#}
    {%- set kinds = config.get('cdc_summary') or {} -%}
    {%- set since_literal = "timestamp'" ~ since ~ "'" if since else none -%}
    {%- if not kinds -%}
        {%- set newest = read_through or cdc_lakehouse._cdc_newest_loaded_at(relation, since_literal) or since -%}
        {{ return({'read_through': newest, 'properties': {}}) }}
    {%- endif -%}
    {%- set names = kinds.keys() | sort -%}
    {%- set query -%}
        select
            cast(max(_loaded_at) as string) as newest,
            count(*) as added_rows
            {%- for name in names %},
            max(case when {{ kinds[name] }} then 1 else 0 end) as {{ adapter.quote('holds_' ~ name) }}
            {%- endfor %}
        from {{ relation }}
        {%- if since_literal %}
        where _loaded_at > {{ since_literal }}
        {%- endif %}
    {%- endset -%}
    {%- set row = run_query(query).rows[0] -%}
    {%- set through = read_through or row[0] or since -%}
    {%- set properties = {
          'cdc.summary.rows': (row[1] or 0) | string,
          'cdc.summary.kinds': names | join(','),
    } -%}
    {%- for name in names -%}
        {%- if row[loop.index + 1] == 1 and through -%}
            {%- do properties.update({'cdc.summary.' ~ name: through | string}) -%}
        {%- elif since is none -%}
            {%- do properties.update({'cdc.summary.' ~ name: 'none'}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return({'read_through': through, 'properties': properties}) }}
{% endmacro %}
