{% macro _cdc_paths_glob(paths) %}
    {#- One Hadoop glob that matches exactly the files `paths`. -#}
    {%- set folder = namespace(prefix=paths[0].rsplit('/', 1)[0]) -%}
    {%- for path in paths -%}
        {%- for _ in range(path.count('/') + 1) -%}
            {%- if not path.startswith(folder.prefix ~ '/') -%}
                {%- set folder.prefix = folder.prefix.rsplit('/', 1)[0] -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- set names = [] -%}
    {%- for path in paths -%}
        {%- do names.append(cdc_lakehouse._cdc_glob_escape(path[folder.prefix | length + 1:])) -%}
    {%- endfor -%}
    {{ return(cdc_lakehouse._cdc_glob_escape(folder.prefix) ~ "/{" ~ names | join(",") ~ "}") }}
{% endmacro %}
