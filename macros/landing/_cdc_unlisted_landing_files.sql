{% macro _cdc_note_unlisted_landing_files(listing) %}
    {#-
        Notes the zero-byte and the unlisted files of a landing listing's result.
        `listing` is a query result of `path`, `length`, `is_unlisted` (a row of
        _cdc_landing_listing_relation's view). Kept for this invocation
        (_cdc_invocation_cache), read by _cdc_empty_landing_files and
        _cdc_unlisted_landing_files.
    -#}
    {%- set empty = cdc_lakehouse._cdc_invocation_cache('empty_landing_files') -%}
    {%- set unlisted = cdc_lakehouse._cdc_invocation_cache('unlisted_landing_files') -%}
    {%- for row in listing.rows -%}
        {%- if row[1] is not none and row[1] | int == 0 -%}
            {%- do empty.update({row[0]: true}) -%}
        {%- elif row[2] -%}
            {%- do unlisted.update({row[0]: true}) -%}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}

{% macro _cdc_empty_landing_files(paths) %}
    {#-
        The zero-byte files among the landing files `paths`, in order.
        As the listing of this run found them (_cdc_note_unlisted_landing_files). A zero-byte
        file holds no message: an upload or copy that never wrote, or a sink's file cut at
        its start. Bronze records it as a file of its own (`empty_file`), so the run says
        so and the next run does not read it again; a later version with bytes loads.
    -#}
    {%- set empty = cdc_lakehouse._cdc_invocation_cache('empty_landing_files') -%}
    {{ return(paths | select('in', empty) | list) }}
{% endmacro %}

{% macro _cdc_unlisted_landing_files(paths) %}
    {#-
        The files among the landing files `paths` that Spark's file sources cannot read.
        Those whose name (or a folder's) starts with `_` or `.`, with bytes, as the listing
        of this run found them (_cdc_note_unlisted_landing_files). Bronze reads them through
        the Java UDF `cdc_landing_file_content` (_cdc_unlisted_landing_contents_relation).
    -#}
    {%- set unlisted = cdc_lakehouse._cdc_invocation_cache('unlisted_landing_files') -%}
    {{ return(paths | select('in', unlisted) | list) }}
{% endmacro %}

{% macro _cdc_unlisted_landing_contents_relation(paths) %}
    {#-
        Registers a temporary view of the unlisted landing files `paths` with their bytes.
        `_cdc_unlisted_landing_contents`: `path`, `modificationtime`, `length` (from the
        listing), `content` (decompressed by extension, null when unreadable) and `error`
        (why), read by the Java UDF `cdc_landing_file_content`. Returns its name; none for
        an empty list.
    -#}
    {%- if not execute or not paths -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set view_name = '_cdc_unlisted_landing_contents' -%}
    {%- call statement('cdc_register_unlisted_contents_view', fetch_result=False) -%}
        create or replace temporary view {{ view_name }} as
        select
            listing.path,
            listing.modificationtime,
            listing.length,
            file_content.content,
            file_content.error
        from (
            select
                path,
                modificationtime,
                length,
                cdc_landing_file_content(path) as file_content
            from {{ cdc_lakehouse._cdc_landing_listing_relation() }}
            where {{ cdc_lakehouse._cdc_in_list('path', paths) }}
        ) as listing
    {%- endcall -%}
    {%- do cdc_lakehouse._cdc_invocation_cache('landing_views').update({view_name: true}) -%}
    {{ return(view_name) }}
{% endmacro %}
