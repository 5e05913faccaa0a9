{% macro _cdc_carry_spec(described, unique_key, model_columns, node_config=none) %}
  {#- The carry-over settings of a model (a dict), or none when it carries nothing. -#}
  {%- set config = config if node_config is none else node_config -%}
  {%- set placeholder = config.get('cdc_unavailable_value_placeholder',
        cdc_lakehouse.cdc_var('cdc_unavailable_value_placeholder')) -%}
  {%- if not placeholder -%}{{ return(none) }}{%- endif -%}
  {%- set keys = unique_key | map('lower') | list -%}
  {%- set typed = [] -%}
  {%- for column in described -%}
    {%- if column.type in ['string', 'binary'] and column.name not in keys
          and not column.name.startswith('_cdc_') and column.name != '_loaded_at' -%}
      {%- do typed.append({'name': column.name, 'type': column.type}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set json = [] -%}
  {%- for name in ['_cdc_row_json', '_cdc_row_json_raw', '_cdc_undeclared_columns'] -%}
    {%- if name in model_columns -%}{%- do json.append(name) -%}{%- endif -%}
  {%- endfor -%}
  {%- if typed | length == 0 and json | length == 0 -%}{{ return(none) }}{%- endif -%}
  {{ return({
      'placeholder': placeholder,
      'forms': cdc_lakehouse._cdc_unavailable_value_forms(placeholder),
      'typed': typed,
      'json': json,
      'unique_key': unique_key,
      'connector_column': '_cdc_connector' if '_cdc_connector' in model_columns else none,
      'by_position': '_cdc_position' in model_columns}) }}
{% endmacro %}

{% macro _cdc_carry_forms(carry) -%}
  {#- The placeholder's forms ([{text, json}], _cdc_unavailable_value_forms) of a carry spec. -#}
  {{ return(carry.get('forms') or cdc_lakehouse._cdc_unavailable_value_forms(carry.placeholder)) }}
{%- endmacro %}

{% macro _cdc_carry_texts(carry) -%}
  {#- The placeholder's forms as a list of SQL string literals, each text once. -#}
  {%- set texts = [] -%}
  {%- for form in cdc_lakehouse._cdc_carry_forms(carry) if form.text not in texts -%}
    {%- do texts.append(form.text) -%}
  {%- endfor -%}
  {%- set literals = [] -%}
  {%- for text in texts -%}
    {%- do literals.append("'" ~ cdc_lakehouse._cdc_escape_string(text) ~ "'") -%}
  {%- endfor -%}
  {{ return(literals) }}
{%- endmacro %}

{% macro _cdc_carry_is_placeholder(carry, column, expression) -%}
  {#- SQL: true when a carried typed column's value is the placeholder, in any of its forms. -#}
  {%- if column.type == 'binary' -%}
  coalesce({{ expression }} = cast('{{ cdc_lakehouse._cdc_escape_string(carry.placeholder) }}' as binary), false)
  {%- else -%}
  coalesce({{ expression }} in ({{ cdc_lakehouse._cdc_carry_texts(carry) | join(', ') }}), false)
  {%- endif -%}
{%- endmacro %}

{% macro _cdc_carry_has_placeholder(carry, prefix) -%}
  {#- True when a row (columns qualified by prefix) holds the placeholder somewhere. -#}
  ({%- for column in carry.typed %}{{ cdc_lakehouse._cdc_carry_is_placeholder(carry, column, prefix ~ cdc_lakehouse.cdc_quote(column.name)) }} or {% endfor -%}
  {%- for name in carry.json %}{% for form in cdc_lakehouse._cdc_carry_forms(carry) %}coalesce(instr({{ prefix }}{{ name }}, ':{{ cdc_lakehouse._cdc_escape_string(form.json) }}') > 0, false) or {% endfor %}{% endfor -%}
  false)
{%- endmacro %}

{% macro _cdc_carry_json(carry, row_json, previous_json, fill_nulls) -%}
  {#- A JSON image with its placeholder fields filled from the previous image. -#}
  case
    when {{ row_json }} is null or {{ previous_json }} is null then {{ row_json }}
    else aggregate(
      map_keys(map_filter(
        from_json({{ row_json }}, 'map<string,string>'),
        (field, text) -> text in ({{ cdc_lakehouse._cdc_carry_texts(carry) | join(', ') }}) or ({{ fill_nulls }} and text is null))),
      {{ row_json }},
      (merged, field) -> case
        when array_contains(map_keys(from_json({{ previous_json }}, 'map<string,variant>')), field)
          then {{ cdc_lakehouse._cdc_let(
            "named_struct('key', " ~ cdc_lakehouse._cdc_json_string('field') ~ ", "
            ~ "'previous', coalesce(to_json(from_json(" ~ previous_json ~ ", 'map<string,variant>')[field]), 'null'))",
            'carried_field',
            cdc_lakehouse._cdc_carry_json_fill(carry, 'merged', 'carried_field', fill_nulls)) }}
        else merged
      end)
  end
{%- endmacro %}

{% macro _cdc_carry_json_fill(carry, merged, carried_field, fill_nulls) -%}
  {#- SQL: `merged` with one JSON field carried over. -#}
  {%- set expression = namespace(sql=merged) -%}
  {%- for form in cdc_lakehouse._cdc_carry_forms(carry) -%}
    {%- set expression.sql = "replace(" ~ expression.sql ~ ", concat(" ~ carried_field ~ ".key, ':"
        ~ cdc_lakehouse._cdc_escape_string(form.json) ~ "'), concat(" ~ carried_field ~ ".key, ':', "
        ~ carried_field ~ ".previous))" -%}
  {%- endfor -%}
  replace({{ expression.sql }},
    concat({{ carried_field }}.key, ':null'),
    if({{ fill_nulls }}, concat({{ carried_field }}.key, ':', {{ carried_field }}.previous), concat({{ carried_field }}.key, ':null')))
{%- endmacro %}

{% macro _cdc_carry_step(carry, previous, row) -%}
  {#- The fold step of the carry-over: a row with its gaps filled from the previous one. -#}
  {%- set key_only_image = '(' ~ row ~ '._cdc_key_only)' -%}
  named_struct(
    '_cdc_sort_key', {{ row }}._cdc_sort_key,
    '_cdc_is_deleted', {{ row }}._cdc_is_deleted,
    '_cdc_op', {{ row }}._cdc_op,
    '_cdc_key_only', {{ row }}._cdc_key_only
    {%- for column in carry.typed %},
    '{{ cdc_lakehouse._cdc_escape_string(column.name) }}', case
      when {{ row }}._cdc_op != 'c'
        and ({{ cdc_lakehouse._cdc_carry_is_placeholder(carry, column, row ~ '.' ~ cdc_lakehouse.cdc_quote(column.name)) }}
          or ({{ row }}._cdc_is_deleted and {{ key_only_image }}))
        then {{ previous }}.{{ cdc_lakehouse.cdc_quote(column.name) }}
      else {{ row }}.{{ cdc_lakehouse.cdc_quote(column.name) }}
    end
    {%- endfor %}
    {%- for name in carry.json %},
    '{{ cdc_lakehouse._cdc_escape_string(name) }}', case
      when {{ row }}._cdc_op = 'c' then {{ row }}.{{ name }}
      else {{ cdc_lakehouse._cdc_carry_json(
          carry, row ~ '.' ~ name, previous ~ '.' ~ name,
          '(' ~ row ~ '._cdc_is_deleted and ' ~ key_only_image ~ ')') }}
    end
    {%- endfor %}
  )
{%- endmacro %}

{% macro _cdc_carry_columns(carry) -%}
  {#- Returns the names of the carried columns: the typed columns, then the JSON images. -#}
  {%- set names = [] -%}
  {%- for column in carry.typed %}{%- do names.append(column.name) -%}{%- endfor -%}
  {{ return(names + carry.json) }}
{%- endmacro %}

{% macro _cdc_key_match(unique_key, left, right) -%}
  {#- A null-safe join condition on the key columns of two relations. -#}
  {%- set parts = [] -%}
  {%- for column in unique_key -%}
    {%- do parts.append(left ~ '.' ~ cdc_lakehouse.cdc_quote(column) ~ ' <=> ' ~ right ~ '.' ~ cdc_lakehouse.cdc_quote(column)) -%}
  {%- endfor -%}
  {{ parts | join(' and ') }}
{%- endmacro %}

{% macro _cdc_carry_fold_ctes(carry, name, keys_cte, sources_cte) %}
  {#- A CTE folding each key's changes oldest first, gaps filled. -#}
  {%- set unique_key = carry.unique_key -%}
{{ name }}_histories as (

    select
        {%- for column in unique_key %}
        {{ sources_cte }}.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        sort_array(collect_list(struct(
            {{ sources_cte }}._cdc_sort_key,
            {{ sources_cte }}._cdc_is_deleted,
            {{ sources_cte }}._cdc_op,
            {{ sources_cte }}._cdc_key_only
            {%- for name in cdc_lakehouse._cdc_carry_columns(carry) %},
            {{ sources_cte }}.{{ cdc_lakehouse.cdc_quote(name) }}
            {%- endfor %}
        ))) as history
    from {{ sources_cte }}
    left semi join {{ keys_cte }}
        on {{ cdc_lakehouse._cdc_key_match(unique_key, sources_cte, keys_cte) }}
    group by {{ cdc_lakehouse._cdc_quote_list(unique_key, sources_cte ~ '.') }}

),

{{ name }} as (

    select
        {%- for column in unique_key %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        aggregate(
            slice(history, 2, size(history)),
            history[0],
            (previous, change) -> {{ cdc_lakehouse._cdc_carry_step(carry, 'previous', 'change') }}
        ) as folded
    from {{ name }}_histories

)
{% endmacro %}

{% macro _cdc_carry_ctes(carry, columns, winners, sources_sql, stored_tombstones_sql) %}
  {#- CTEs ending in `carried`: the winning rows with unavailable values carried over. -#}
  {%- set unique_key = carry.unique_key -%}
  {%- set carried_columns = cdc_lakehouse._cdc_carry_columns(carry) -%}
carry_keys as (

    select {{ cdc_lakehouse._cdc_quote_list(unique_key) }}, _cdc_is_deleted
    from {{ winners }}
    where _cdc_is_deleted or {{ cdc_lakehouse._cdc_carry_has_placeholder(carry, '') }}

),

carry_sources as (

    {{ sources_sql }}

),
  {%- if carry.by_position %}

tombstone_keys as (

    select * from carry_keys where _cdc_is_deleted

),

{{ cdc_lakehouse._cdc_carry_fold_ctes(carry, 'tombstones_folded', 'tombstone_keys', 'carry_sources') }},

pk_creates as (

    select
        {%- for column in unique_key %}
        carry_sources.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        carry_sources._cdc_carry_source_id,
        carry_sources._cdc_position,
        carry_sources._cdc_sort_key
    from carry_sources
    left semi join carry_keys
        on {{ cdc_lakehouse._cdc_key_match(unique_key, 'carry_sources', 'carry_keys') }}
    where carry_sources._cdc_op = 'c' and {{ cdc_lakehouse._cdc_carry_has_placeholder(carry, 'carry_sources.') }}

),

pk_tombstones as (

    select
        {%- for column in unique_key %}
        {{ winners }}.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        {{ winners }}._cdc_source_id as _cdc_carry_source_id,
        {{ winners }}._cdc_position,
        {{ winners }}._cdc_sort_key
        {%- for name in carried_columns %},
        tombstones_folded.folded.{{ cdc_lakehouse.cdc_quote(name) }}
        {%- endfor %}
    from {{ winners }}
    inner join tombstones_folded
        on {{ cdc_lakehouse._cdc_key_match(unique_key, winners, 'tombstones_folded') }}
    left semi join pk_creates
        on {{ winners }}._cdc_source_id = pk_creates._cdc_carry_source_id
        and {{ winners }}._cdc_position = pk_creates._cdc_position
    where {{ winners }}._cdc_op = 'd' and {{ winners }}._cdc_is_deleted
    {%- if stored_tombstones_sql is not none %}

    union all

    select
        {%- for column in unique_key %}
        {{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        _cdc_source_id as _cdc_carry_source_id,
        _cdc_position,
        _cdc_sort_key
        {%- for name in carried_columns %},
        {{ cdc_lakehouse.cdc_quote(name) }}
        {%- endfor %}
    from ({{ stored_tombstones_sql }}) as stored_tombstones
    left semi join pk_creates
        on stored_tombstones._cdc_source_id = pk_creates._cdc_carry_source_id
        and stored_tombstones._cdc_position = pk_creates._cdc_position
    where stored_tombstones._cdc_op = 'd' and stored_tombstones._cdc_is_deleted
    {%- endif %}

),

pk_pairs as (

    select
        {%- for column in unique_key %}
        pk_creates.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        pk_creates._cdc_sort_key
        {%- for name in carried_columns %},
        pk_tombstones.{{ cdc_lakehouse.cdc_quote(name) }} as {{ cdc_lakehouse.cdc_quote('previous_' ~ name) }}
        {%- endfor %},
        row_number() over (
            partition by
                {%- for column in unique_key %} pk_creates.{{ cdc_lakehouse.cdc_quote(column) }},{% endfor %}
                pk_creates._cdc_sort_key
            order by pk_tombstones._cdc_sort_key desc
        ) as pair_rank
    from pk_creates
    inner join pk_tombstones
        on pk_creates._cdc_carry_source_id = pk_tombstones._cdc_carry_source_id
        and pk_creates._cdc_position = pk_tombstones._cdc_position
        and not ({{ cdc_lakehouse._cdc_key_match(unique_key, 'pk_creates', 'pk_tombstones') }})

),

patched_sources as (

    select
        {%- for column in unique_key %}
        carry_sources.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endfor %}
        carry_sources._cdc_sort_key,
        carry_sources._cdc_is_deleted,
        carry_sources._cdc_op,
        carry_sources._cdc_key_only
        {%- for column in carry.typed %},
        if(pk_pairs.pair_rank is not null
            and {{ cdc_lakehouse._cdc_carry_is_placeholder(carry, column, 'carry_sources.' ~ cdc_lakehouse.cdc_quote(column.name)) }},
            pk_pairs.{{ cdc_lakehouse.cdc_quote('previous_' ~ column.name) }}, carry_sources.{{ cdc_lakehouse.cdc_quote(column.name) }}) as {{ cdc_lakehouse.cdc_quote(column.name) }}
        {%- endfor %}
        {%- for name in carry.json %},
        if(pk_pairs.pair_rank is null, carry_sources.{{ name }},
            {{ cdc_lakehouse._cdc_carry_json(carry, 'carry_sources.' ~ name, 'pk_pairs.' ~ cdc_lakehouse.cdc_quote('previous_' ~ name), 'false') }})
            as {{ name }}
        {%- endfor %}
    from carry_sources
    left outer join pk_pairs
        on {{ cdc_lakehouse._cdc_key_match(unique_key, 'carry_sources', 'pk_pairs') }}
        and carry_sources._cdc_sort_key = pk_pairs._cdc_sort_key
        and carry_sources._cdc_op = 'c'
        and pk_pairs.pair_rank = 1

),

{{ cdc_lakehouse._cdc_carry_fold_ctes(carry, 'carry_folded', 'carry_keys', 'patched_sources') }},
  {%- else %}

{{ cdc_lakehouse._cdc_carry_fold_ctes(carry, 'carry_folded', 'carry_keys', 'carry_sources') }},
  {%- endif %}

carried as (

    select
        {%- for column in columns %}
        {%- if column in carried_columns %}
        if(carry_folded.folded is null, {{ winners }}.{{ cdc_lakehouse.cdc_quote(column) }}, carry_folded.folded.{{ cdc_lakehouse.cdc_quote(column) }})
            as {{ cdc_lakehouse.cdc_quote(column) }},
        {%- else %}
        {{ winners }}.{{ cdc_lakehouse.cdc_quote(column) }},
        {%- endif %}
        {%- endfor %}
        {{ winners }}._cdc_is_deleted,
        {{ winners }}.cdc_bucket
    from {{ winners }}
    left outer join carry_folded
        on {{ cdc_lakehouse._cdc_key_match(unique_key, winners, 'carry_folded') }}

)
{% endmacro %}

{% macro _cdc_carry_revisit_sql(carry, columns, changes_sql, state_relation) %}
  {#- Stored creates of a primary-key change to apply again with the batch. -#}
    {#- the few creates waiting are broadcast: the stored rows are read from their buckets only #}
    select /*+ broadcast(waiting) */
        {%- for column in columns %}
        stored.{{ cdc_lakehouse.cdc_quote(column) }}{{ "," if not loop.last }}
        {%- endfor %}
    from {{ state_relation }} as stored
    left semi join (
        select {{ cdc_lakehouse._cdc_quote_list(carry.unique_key) }}, _cdc_sort_key, cdc_bucket
        from {{ state_relation }}
        where cdc_bucket >= {{ cdc_lakehouse._cdc_partition('delta') }} and cdc_bucket != {{ cdc_lakehouse._cdc_partition('truncate_markers') }}
            and _cdc_op = 'c' and not _cdc_is_deleted
            and (_cdc_source_id, _cdc_position) in (
                select _cdc_source_id, _cdc_position
                from ({{ changes_sql }}) as batch_deletes
                where _cdc_op = 'd'
            )
    ) as waiting
        on stored.cdc_bucket = waiting.cdc_bucket
        and {{ cdc_lakehouse._cdc_key_match(carry.unique_key, 'stored', 'waiting') }}
        and stored._cdc_sort_key = waiting._cdc_sort_key
    where stored.cdc_bucket != {{ cdc_lakehouse._cdc_partition('truncate_markers') }}
        and {{ cdc_lakehouse._cdc_carry_has_placeholder(carry, 'stored.') }}
{% endmacro %}

{% macro _cdc_carry_published(carry, column) -%}
  {#- A column as the view shows it: a placeholder that could not be resolved reads as null. -#}
  {%- if carry is none -%}{{ cdc_lakehouse.cdc_quote(column) }}
  {%- elif column in carry.json -%}
  {%- set expression = namespace(sql=cdc_lakehouse.cdc_quote(column)) -%}
  {%- for form in cdc_lakehouse._cdc_carry_forms(carry) -%}
    {%- set expression.sql = "replace(" ~ expression.sql ~ ", ':" ~ cdc_lakehouse._cdc_escape_string(form.json) ~ "', ':null')" -%}
  {%- endfor -%}
  {{ expression.sql }} as {{ cdc_lakehouse.cdc_quote(column) }}
  {%- else -%}
    {%- set typed_column = carry.typed | selectattr('name', 'equalto', column) | list -%}
    {%- if typed_column -%}
  if({{ cdc_lakehouse._cdc_carry_is_placeholder(carry, typed_column[0], cdc_lakehouse.cdc_quote(column)) }}, null, {{ cdc_lakehouse.cdc_quote(column) }}) as {{ cdc_lakehouse.cdc_quote(column) }}
    {%- else -%}{{ cdc_lakehouse.cdc_quote(column) }}{%- endif -%}
  {%- endif -%}
{%- endmacro %}

{% macro _cdc_carry_source_columns(carry, prefix='') -%}
  {#- The columns a carry source row needs, qualified by prefix. -#}
  {%- set names = carry.unique_key + ['_cdc_sort_key', '_cdc_is_deleted', '_cdc_op'] + cdc_lakehouse._cdc_carry_columns(carry) -%}
  {%- for name in names %}{{ prefix }}{{ cdc_lakehouse.cdc_quote(name) }}, {% endfor -%}
  {{ cdc_lakehouse._cdc_carry_key_only(carry, prefix) }} as _cdc_key_only,
  {%- if carry.by_position -%}
  {{ prefix }}_cdc_source_id as _cdc_carry_source_id, {{ prefix }}_cdc_position
  {%- else -%}
  null as _cdc_carry_source_id
  {%- endif -%}
{%- endmacro %}

{% macro _cdc_carry_key_only(carry, prefix) -%}
  {#- True when a row's image may hold nothing but its key. -#}
  {%- if carry.typed -%}
  ({% for column in carry.typed %}{{ prefix }}{{ cdc_lakehouse.cdc_quote(column.name) }} is null{{ ' and ' if not loop.last }}{% endfor %})
  {%- elif carry.connector_column -%}
  coalesce({{ prefix }}{{ carry.connector_column }} = 'postgresql', false)
  {%- else -%}
  true
  {%- endif -%}
{%- endmacro %}

{% macro _cdc_carry_needed_condition(carry) -%}
  {#- True for a change the carry-over could alter. -#}
  ({{ cdc_lakehouse._cdc_carry_has_placeholder(carry, '') }}
    or (_cdc_op = 'd' and {{ cdc_lakehouse._cdc_carry_key_only(carry, '') }}))
{%- endmacro %}

{% macro _cdc_carry_needed_sql(carry, changes_relation, state_relation) %}
  {#- A query counting the rows the carry-over could change (the state's delta partition too, unless none). -#}
    select count(*) from (
        select 1 from {{ changes_relation }}
        where {{ cdc_lakehouse._cdc_carry_needed_condition(carry) }}
        {%- if state_relation is not none %}
        union all
        select 1 from {{ state_relation }}
        where cdc_bucket = {{ cdc_lakehouse._cdc_partition('delta') }} and {{ cdc_lakehouse._cdc_carry_has_placeholder(carry, '') }}
        {%- endif %}
    ) as needing_carry
{% endmacro %}

{% macro _cdc_carry_changes_sql(plan, batch_sql) %}
  {#- The changes the carry-over reads: a state no row of which holds the placeholder has no create waiting. -#}
  {%- if plan.carry is not none and plan.carry.by_position and not plan.carry_clean -%}
    {{ return(batch_sql ~ " union all " ~ cdc_lakehouse._cdc_carry_revisit_sql(
          plan.carry, plan.state_columns, batch_sql, plan.state_relation)) }}
  {%- endif -%}
  {{ return(batch_sql) }}
{% endmacro %}

{% macro _cdc_carry_questions(plan, batch_sql) %}
  {#- The run's questions of the carry-over: the rows it could change, and the batch's placeholders on a clean state. -#}
  {%- if plan.carry is none -%}
    {{ return({}) }}
  {%- endif -%}
  {%- set questions = {'carry_needed': cdc_lakehouse._cdc_carry_needed_sql(
        plan.carry, '(' ~ cdc_lakehouse._cdc_carry_changes_sql(plan, batch_sql) ~ ') as changes',
        none if plan.carry_clean else plan.state_relation)} -%}
  {%- if plan.carry_clean -%}
    {%- do questions.update({'carry_placeholders': 'select '
          ~ cdc_lakehouse._cdc_carry_placeholder_count(plan.carry, false) ~ ' from (' ~ batch_sql ~ ') as batch'}) -%}
  {%- endif -%}
  {{ return(questions) }}
{% endmacro %}

{% macro _cdc_carry_clean_mark(carry) %}
  {#- The state's property cdc.carry.stored when none of its rows holds this carry-over's placeholder. -#}
  {{ return('none ' ~ local_md5(carry | tojson)) }}
{% endmacro %}

{% macro _cdc_carry_record(plan, placeholders) %}
  {#- The property cdc.carry.stored after a write that stored `placeholders` rows holding the placeholder. -#}
  {%- if plan.carry is none -%}
    {{ return({}) }}
  {%- endif -%}
  {%- set clean = (plan.write_path == 'rebuild' or plan.carry_clean) and placeholders | int == 0 -%}
  {{ return({'cdc.carry.stored': cdc_lakehouse._cdc_carry_clean_mark(plan.carry) if clean else ''}) }}
{% endmacro %}

{% macro _cdc_carry_for_batch(plan, batch_sql, needed) %}
  {#- The carry-over a run needs, and the changes it reads: {carry, changes_sql}. -#}
  {%- if plan.carry is none or needed is none or needed | int == 0 -%}
    {{ return({'carry': none, 'changes_sql': batch_sql}) }}
  {%- endif -%}
  {{ return({'carry': plan.carry, 'changes_sql': cdc_lakehouse._cdc_carry_changes_sql(plan, batch_sql)}) }}
{% endmacro %}

{% macro _cdc_carry_needed_count(carry, readable_only) %}
  {#- The count of change rows the carry-over could change, as a SQL aggregate ('0' without one). -#}
  {%- if carry is none -%}
    {{ return('0') }}
  {%- endif -%}
  {{ return('count_if(' ~ ('_cdc_error_reason is null and ' if readable_only else '')
      ~ cdc_lakehouse._cdc_carry_needed_condition(carry) ~ ')') }}
{% endmacro %}

{% macro _cdc_carry_placeholder_count(carry, readable_only) %}
  {#- The count of change rows that hold the placeholder, as a SQL aggregate ('0' without a carry-over). -#}
  {%- if carry is none -%}
    {{ return('0') }}
  {%- endif -%}
  {{ return('count_if(' ~ ('_cdc_error_reason is null and ' if readable_only else '')
      ~ cdc_lakehouse._cdc_carry_has_placeholder(carry, '') ~ ')') }}
{% endmacro %}
