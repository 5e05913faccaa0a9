{% macro _cdc_loaded_files_relation(bronze_relation) %}
    {#-
        The relation of bronze's table of loaded files.
        It is `<bronze>__cdc_files`: one row per landing file version (`_source_file`,
        `_source_file_modified_at`) bronze has loaded, with the newest `_loaded_at` of its
        lines, written by bronze's post-hook (_cdc_record_loaded_files). Its property
        `cdc.read_through` is the bronze load through which it is complete.
    -#}
    {{ return(bronze_relation.incorporate(
        path={'identifier': bronze_relation.identifier ~ '__cdc_files'}, type='table')) }}
{% endmacro %}
