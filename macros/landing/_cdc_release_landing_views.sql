{% macro _cdc_release_landing_views() %}
    {#-
        Post-hook of bronze: replaces the landing views by empty ones.
        Bronze's post-hook: the landing views (_cdc_landing_files_relation,
        _cdc_landing_files_subset_relation, _cdc_landing_probe_relation) replaced by empty ones once bronze has read its
        files, so that a Thrift Server's connection closes do not list the landing folder
        again for them (_cdc_release_temp_view). Returns no SQL.
    -#}
    {%- for view_name in [
        '_cdc_landing_files', '_cdc_new_landing_files', '_cdc_new_landing_lines',
        '_cdc_probed_landing_files', '_cdc_unreadable_landing_lines'
    ] -%}
        {%- do cdc_lakehouse._cdc_release_temp_view(view_name) -%}
    {%- endfor -%}
    {%- do cdc_lakehouse._cdc_invocation_cache('landing_views').clear() -%}
{% endmacro %}
