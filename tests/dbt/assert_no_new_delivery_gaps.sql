{{ config(severity='warn') }}

-- New gaps in delivery (cdc_delivery_gaps): ranges of Kafka offsets missing next to an
-- offset this build loaded, and Debezium transactions of which this build loaded an event
-- or the END, whose END counts more events than arrived. One row per place, with a
-- message saying how many ranges, offsets or events are missing and where. Topics in the
-- var cdc_gap_tolerant_topics never warn. A `dbt build` checks what it loaded
-- (cdc_test_scope): the offsets next to those it loaded; `dbt test` every gap.

{%- set scope = cdc_test_scope(ref('cdc_delivery_gaps')) %}
{%- set nearby = scope.kind == 'since' %}
{#- bronze by its node: a ref() would select this test with every build of bronze -#}
{%- set bronze_id = 'model.' ~ model.package_name ~ '.bronze_cdc_messages' %}
{%- set bronze = graph.nodes[bronze_id].relation_name if nearby else none %}

with
{%- if nearby %}

{#- the offsets next to those it loaded, not a window over every offset of bronze #}
{{ _cdc_kafka_offset_gaps(bronze, scope.since) }},
{%- endif %}

gaps as (
    {%- if nearby %}

    select * from offset_gaps
    where not is_tolerated
    union all
    {%- endif %}
    select * from {{ ref('cdc_delivery_gaps') }}
    where not is_tolerated and {{ cdc_scope_predicate(scope) }}
    {%- if nearby %}
        and gap_kind = 'transaction_events'
    {%- endif %}

),

offset_places as (

    select
        gap_kind,
        concat('topic ', _kafka_topic, ' partition ', cast(_kafka_partition as string)) as gap_place,
        count(*) as gap_ranges,
        sum(missing_count) as missing_count,
        array_join(slice(transform(
            array_sort(collect_list(named_struct('first', first_missing_offset, 'last', last_missing_offset))),
            gap -> case
                when gap.first = gap.last then cast(gap.first as string)
                else concat(cast(gap.first as string), '-', cast(gap.last as string))
            end
        ), 1, 10), ', ') as missing_list
    from gaps
    where gap_kind = 'kafka_offsets'
    group by gap_kind, _kafka_topic, _kafka_partition

),

transaction_places as (

    select
        gap_kind,
        concat('source database ', source_db) as gap_place,
        count(*) as gap_ranges,
        sum(missing_count) as missing_count,
        array_join(slice(transform(
            array_sort(collect_list(
                named_struct('id', transaction_id, 'seen', events_seen, 'expected', events_expected)
            )),
            gap -> concat(
                'transaction ', gap.id, ' (', cast(gap.seen as string), ' of ', cast(gap.expected as string), ')'
            )
        ), 1, 10), ', ') as missing_list
    from gaps
    where gap_kind = 'transaction_events'
    group by gap_kind, source_db

),

final as (

    select
        gap_kind,
        gap_place,
        gap_ranges,
        missing_count,
        concat(
            cast(missing_count as string), if(missing_count = 1, ' offset', ' offsets'),
            ' missing in ', cast(gap_ranges as string), if(gap_ranges = 1, ' range', ' ranges'),
            ' of ', gap_place, ': ', missing_list, if(gap_ranges > 10, ', ...', '')
        ) as message
    from offset_places
    union all
    select
        gap_kind,
        gap_place,
        gap_ranges,
        missing_count,
        concat(
            cast(missing_count as string), if(missing_count = 1, ' event', ' events'),
            ' missing from ', cast(gap_ranges as string),
            if(gap_ranges = 1, ' Debezium transaction', ' Debezium transactions'), ' of ', gap_place,
            ' (events loaded of those its END announced): ', missing_list, if(gap_ranges > 10, ', ...', '')
        ) as message
    from transaction_places

)

select * from final
