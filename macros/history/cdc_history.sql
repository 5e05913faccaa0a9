{% macro cdc_history(changes, key_columns, value_columns) %}
    {#-
        Type-2 history of a table from its typed change log `changes` (a relation or CTE
        name): one version per applied create, update or snapshot read, valid from its
        source time until the key's next change or the table's next truncate, whichever
        comes first. Deletes and truncates close versions and open none. Copies of one
        event (same position) count once, so replays and duplicates change nothing, and a
        late event takes its place in the sequence by position, not by arrival.
          key_columns    the table's key (contract names), without _cdc_source_id
          value_columns  the contract columns to carry in each version
        A query that reads the whole change log: a model that keeps its history up to date
        batch by batch is materialized as cdc_history instead (no call needed).
    -#}
{{ cdc_lakehouse._cdc_history_sql(changes, key_columns, value_columns) }}
{% endmacro %}
