{% macro _cdc_companion_relation(suffix) %}
  {#- A table that lives beside the model's relation: <identifier><suffix>. -#}
  {{ return(api.Relation.create(
      database=this.database, schema=this.schema,
      identifier=this.identifier ~ suffix, type='table')) }}
{% endmacro %}
