{% macro _cdc_latest_versions_relation(relation) %}
    {#-
        The relation of a fold model's table of latest versions.
        It is `<identifier>__cdc_latest` (int_cdc__document_changes): per key, the newest
        version the model holds (`latest_version`: its document and partial flag), that
        version's `_cdc_sort_key` and the newest `_cdc_message_sort_key`, written by the model's
        post-hook (_cdc_record_latest_versions). Its property `cdc.read_through` is the model's
        load through which it is complete.
    -#}
    {{ return(relation.incorporate(
        path={'identifier': relation.identifier ~ '__cdc_latest'}, type='table')) }}
{% endmacro %}
