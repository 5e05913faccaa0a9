{% macro _cdc_summarise_write(relation, read_through, since=none) %}
    {#- After a write: what it is complete through, and what its rows hold, as properties. -#}
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

{% macro _cdc_newest_loaded_at(relation, after=none) %}
    {#- The newest `_loaded_at` of `relation` as text. -#}
    {%- if '_loaded_at' not in cdc_lakehouse._cdc_column_names(relation) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set newest = run_query(
        "select cast(max(_loaded_at) as string) from " ~ relation
        ~ (" where _loaded_at > " ~ after if after else "")
    ).columns[0].values()[0] -%}
    {{ return(newest) }}
{% endmacro %}
