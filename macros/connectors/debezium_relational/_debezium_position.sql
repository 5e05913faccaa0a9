{% macro _debezium_position(connector, source) %}
    {#- A string that sorts like the connector's change order. -#}
    case {{ connector }}
        when 'oracle' then
            {%- set rs_id = "nullif(lower(trim(" ~ source ~ ".rs_id)), '')" %}
            case
                when coalesce({{ source }}.commit_scn, {{ source }}.scn) rlike '^[0-9]{1,30}$'
                    and coalesce({{ source }}.scn, '0') rlike '^[0-9]{1,30}$'
                    and coalesce({{ rs_id }}, '0.0.0')
                    rlike '^(0x)?[0-9a-f]{1,16}[.][0-9a-f]{1,16}[.][0-9a-f]{1,16}$'
                    and coalesce({{ source }}.ssn, '0') rlike '^[0-9]{1,20}$'
                    and coalesce({{ source }}.redo_thread, '0') rlike '^[0-9]{1,10}$'
                    then concat(
                        lpad(coalesce({{ source }}.commit_scn, {{ source }}.scn), 30, '0'),
                        '.',
                        lpad(coalesce({{ source }}.scn, '0'), 30, '0'),
                        '.',
                        coalesce(concat_ws('.', transform(
                            split(regexp_replace({{ rs_id }}, '^0x', ''), '[.]'),
                            rs_part -> lpad(rs_part, 16, '0')
                        )), ''),
                        '.',
                        lpad(coalesce({{ source }}.ssn, '0'), 20, '0'),
                        '.',
                        lpad(coalesce({{ source }}.redo_thread, '0'), 10, '0')
                    )
            end
        when 'sqlserver' then
            case
                when {{ source }}.commit_lsn is not null
                    and coalesce({{ source }}.event_serial_no, '0') rlike '^[0-9]{1,18}$'
                    then concat(
                        lower({{ source }}.commit_lsn),
                        '.',
                        lower(coalesce({{ source }}.change_lsn, '')),
                        '.',
                        lpad(coalesce({{ source }}.event_serial_no, '0'), 18, '0')
                    )
            end
        when 'db2' then
            case
                when {{ source }}.commit_lsn is not null
                    then concat(
                        lower({{ source }}.commit_lsn),
                        '.',
                        lower(coalesce({{ source }}.change_lsn, ''))
                    )
            end
        when 'postgresql' then
            case
                when {{ source }}.lsn rlike '^[0-9]{1,20}$'
                    then lpad({{ source }}.lsn, 20, '0')
            end
        when 'ticdc' then
            case
                when {{ source }}.commit_ts rlike '^[0-9]{1,20}$'
                    then lpad({{ source }}.commit_ts, 20, '0')
            end
        when 'mysql' then
            case
                when {{ source }}.pos rlike '^[0-9]{1,20}$'
                    then concat(
                        coalesce({{ source }}.file, ''),
                        '.',
                        lpad({{ source }}.pos, 20, '0'),
                        '.',
                        lpad(coalesce({{ source }}.row, '0'), 10, '0')
                    )
            end
    end
{% endmacro %}
