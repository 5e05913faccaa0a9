{% macro debezium_position(connector, source) %}
    {#-
        A string that sorts like the connector's change order, so that positions of one
        source database compare with plain string comparison:
          oracle      commit_scn (or scn for snapshot reads), then scn: decimal numbers
                      of varying length, left-padded to 30 digits
          sqlserver   commit_lsn, change_lsn, event_serial_no (number or string)
          db2         commit_lsn, change_lsn
          postgresql  lsn (a number), left-padded to 20 digits
          mysql       binlog file, pos, row
        A missing part sorts first (snapshot reads have no change_lsn). Null when a part
        that must be a number is not one.
    -#}
    case {{ connector }}
        when 'oracle' then
            case
                when coalesce({{ source }}.commit_scn, {{ source }}.scn) rlike '^[0-9]{1,30}$'
                    and coalesce({{ source }}.scn, '0') rlike '^[0-9]{1,30}$'
                    then concat(
                        lpad(coalesce({{ source }}.commit_scn, {{ source }}.scn), 30, '0'),
                        '.',
                        lpad(coalesce({{ source }}.scn, '0'), 30, '0')
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
