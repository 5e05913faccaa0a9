{% macro _cdc_connector_families() %}
    {#-
        The registered connector families, in detection order.
        A message belongs to the first family whose `<family>__detect` is true. Each family is a
        folder `macros/connectors/<family>/` implementing the interface of `cdc_family_hook`.
        The var `cdc_connector_families` replaces the list (e.g. to leave a family out).
        debezium_flattened comes first: its added fields (`__op`) are in no other envelope,
        and a flattened row's own columns could look like another format's fields.
        DataWorks, Canal, Maxwell and OGG come before debezium_relational, whose detect is broad
        (any `op` or `source`: OGG messages may carry a stray `source` object).
    -#}
    {{ return(cdc_lakehouse.cdc_var('cdc_connector_families')) }}
{% endmacro %}
