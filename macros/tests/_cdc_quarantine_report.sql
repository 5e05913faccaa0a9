{% macro _cdc_quarantine_report(findings, console_lines=10) %}
    {#- Runs assert_no_new_quarantined_messages' query once, says what it found, returns SQL. -#}
    {%- set columns = [
        ('reason_code', 'string'), ('source_kind', 'string'), ('source_name', 'string'),
        ('_source_file', 'string'), ('messages', 'bigint'), ('file_messages', 'bigint'),
        ('file_problem', 'string'), ('reaches_nothing', 'boolean'), ('message', 'string'),
        ('source_message', 'string')
    ] -%}
    {%- set rows = run_query(findings).rows if findings is not none else [] -%}
    {%- if not rows -%}
        {%- set nothing = [] -%}
        {%- for name, type in columns -%}
            {%- do nothing.append('cast(null as ' ~ type ~ ') as ' ~ name) -%}
        {%- endfor -%}
        {{ return('select ' ~ nothing | join(', ') ~ ' where false') }}
    {%- endif -%}

    {%- set error_share = cdc_lakehouse._cdc_quarantine_error_share() -%}
    {%- set unread_severity = cdc_lakehouse._cdc_unread_source_severity() -%}
    {%- set run_messages = rows[0]['run_messages'] | int -%}
    {%- set run_unreadable_files = rows[0]['run_unreadable_files'] | int -%}
    {%- set run_quarantined = rows[0]['run_quarantined'] | int -%}
    {%- set unread_sources = [] -%}
    {%- set other_places = [] -%}
    {%- set places = [] -%}
    {%- for row in rows -%}
        {%- do places.append(row['message']) -%}
        {%- if row['reaches_nothing'] -%}
            {%- if row['source_message'] not in unread_sources -%}
                {%- do unread_sources.append(row['source_message']) -%}
            {%- endif -%}
        {%- else -%}
            {%- do other_places.append(row['message']) -%}
        {%- endif -%}
    {%- endfor -%}

    {#- the console: one line per source that reached nothing, then per file of the others -#}
    {%- set plural = {true: 's', false: ''} -%}
    {%- set header = [
        model.name ~ ': ' ~ (run_quarantined - run_unreadable_files) ~ ' of the ' ~ run_messages
        ~ ' messages checked were quarantined, and ' ~ run_unreadable_files ~ ' landing file'
        ~ plural[run_unreadable_files != 1] ~ ' could not be read'
    ] -%}
    {%- if unread_sources -%}
        {%- do header.append(unread_sources | length ~ ' source' ~ plural[unread_sources | length != 1]
              ~ ' reached nothing (var cdc_unread_source_severity: ' ~ unread_severity ~ ')') -%}
    {%- endif -%}
    {%- do log(header | join('; ') ~ ' (cdc_quarantine_summary says why and what to do):', info=True) -%}
    {%- set lines = unread_sources + other_places -%}
    {%- for line in lines[:console_lines] -%}
        {%- do log('  ' ~ line, info=True) -%}
    {%- endfor -%}
    {%- if lines | length > console_lines -%}
        {%- do log('  ... and ' ~ (lines | length - console_lines) ~ ' more (the rows of ' ~ model.name
              ~ ': its compiled SQL, or dbt test --store-failures)', info=True) -%}
    {%- endif -%}

    {#- the rows found, as values -#}
    {%- set literals = [] -%}
    {%- for row in rows -%}
        {%- set values = [] -%}
        {%- for name, type in columns -%}
            {%- set value = row[name] -%}
            {%- if value is none -%}
                {%- do values.append('cast(null as ' ~ type ~ ')') -%}
            {%- elif type == 'string' -%}
                {%- do values.append("'" ~ cdc_lakehouse._cdc_escape_string(value) ~ "'") -%}
            {%- elif type == 'boolean' -%}
                {%- do values.append('true' if value else 'false') -%}
            {%- else -%}
                {%- do values.append('cast(' ~ (value | int) ~ ' as ' ~ type ~ ')') -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do literals.append('(' ~ values | join(', ') ~ ')') -%}
    {%- endfor -%}
    {%- set found -%}
        select * from values
            {{ literals | join(',\n            ') }}
            as findings ({{ columns | map(attribute=0) | join(', ') }})
    {%- endset -%}

    {#- the run's error: a source that reached nothing, or the share of the run quarantined -#}
    {%- set errors = [] -%}
    {%- if unread_sources and unread_severity == 'error' -%}
        {%- do errors.append(unread_sources | length ~ ' source' ~ plural[unread_sources | length != 1]
              ~ ' of this run reached nothing (var cdc_unread_source_severity: error; warn makes it a '
              ~ 'warning): ' ~ unread_sources[:20] | join('; ') ~ ('; ...' if unread_sources | length > 20 else '')) -%}
    {%- endif -%}
    {%- set loaded = run_messages + run_unreadable_files -%}
    {%- if errors or (loaded > 0 and run_quarantined >= error_share * loaded) -%}
        {%- do errors.append('this run quarantined ' ~ (run_quarantined - run_unreadable_files)
              ~ ' of the ' ~ run_messages ~ ' messages it loaded and ' ~ run_unreadable_files
              ~ ' landing file' ~ plural[run_unreadable_files != 1]
              ~ ' it could not read (var cdc_quarantine_error_share: ' ~ error_share
              ~ '; cdc_quarantine_summary says why and what to do): ' ~ places[:20] | join('; ')
              ~ ('; ...' if places | length > 20 else '')) -%}
        {%- set raised -%}
            select * from ({{ found }}) as findings
            where cast(raise_error('{{ cdc_lakehouse._cdc_escape_string(errors | join(". ")) }}') as boolean)
        {%- endset -%}
        {{ return(raised) }}
    {%- endif -%}
    {{ return(found) }}
{% endmacro %}

{% macro _cdc_quarantine_error_share() %}
    {#- The var cdc_quarantine_error_share as a number in (0, 1]. -#}
    {%- set value = cdc_lakehouse.cdc_var('cdc_quarantine_error_share') -%}
    {%- set number = value | float(-1) if value is not boolean else -1 -%}
    {%- if number <= 0 or number > 1 -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_quarantine_error_share=" ~ value ~ " is not accepted: a number above 0 "
            ~ "and at most 1 (1: error only when every message of the run was quarantined; "
            ~ "0.05: from 5%)") }}
    {%- endif -%}
    {{ return(number) }}
{% endmacro %}

{% macro _cdc_unread_source_severity() %}
    {#- The var cdc_unread_source_severity: `error` or `warn`. -#}
    {%- set accepted = ['error', 'warn'] -%}
    {%- set value = cdc_lakehouse.cdc_var('cdc_unread_source_severity') -%}
    {%- if value is not string or value | lower not in accepted -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_unread_source_severity=" ~ value ~ " is not one of: " ~ accepted | join(', ')
            ~ " (error: a run that reads nothing of a source fails; warn: it warns)") }}
    {%- endif -%}
    {{ return(value | lower) }}
{% endmacro %}
