{% macro _cdc_snapshot_markers(plan, sql) %}
  {#-
      The model's change rows plus a truncate per completed blocking snapshot.
      The model's change rows (`sql`) plus, for cdc_snapshot_reconciliation, one truncate
      row (`_cdc_op = 't'`) per completed blocking snapshot of a source table
      (int_cdc__snapshots): sort key `reconciles_before`, loaded when the snapshot became
      complete. Every read of the snapshot and every later change sort above it; a key
      whose latest change sorts below it was not read, so it is gone from the source. Each
      write path (rebuild, delta, compaction, MERGE) then hides such rows exactly as it
      hides rows older than a truncate (_cdc_hidden_by_truncate), in the batch that loads
      the completing read. The model must depend on int_cdc__snapshots.
  -#}
  {%- set depends_on = [] -%}
  {%- for node in model.depends_on.nodes -%}
    {%- do depends_on.append(node.split('.')[-1]) -%}
  {%- endfor -%}
  {%- if 'int_cdc__snapshots' not in depends_on -%}
    {{ exceptions.raise_compiler_error(
        "cdc_current_state model " ~ this ~ " sets cdc_snapshot_reconciliation='"
        ~ plan.cdc.snapshot_reconciliation ~ "' (accepted: off, delete), which reads "
        ~ "int_cdc__snapshots: add the line  -- depends_on: {{ ref('int_cdc__snapshots') }}  "
        ~ "to the model, or set it to off"
    ) }}
  {%- endif -%}
  {%- set columns = plan.state_columns + (['_cdc_error_reason'] if plan.readable_only else []) -%}
  {%- set markers_sql -%}
    select {{ cdc_lakehouse._cdc_quote_list(columns) }} from (
        {{ sql }}
    ) as model_changes

    union all

    select
      {%- for column in columns %}
      {%- if column == '_cdc_source_id' %}
        _cdc_source_id
      {%- elif column == '_cdc_sort_key' %}
        reconciles_before
      {%- elif column == '_cdc_op' %}
        't'
      {%- elif column == '_loaded_at' %}
        completed_loaded_at
      {%- else %}
        null
      {%- endif %} as {{ cdc_lakehouse.cdc_quote(column) }}{{ "," if not loop.last }}
      {%- endfor %}
    from {{ ref('int_cdc__snapshots') }}
    where is_complete
  {%- endset -%}
  {{ return(markers_sql) }}
{% endmacro %}
