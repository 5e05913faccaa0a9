{% macro _cdc_release_temp_view(identifier) %}
    {#-
        Replaces the temporary view `identifier` by an empty one.
        It does so once its node is done with it. A Thrift Server shares one session among its
        connections (singleSession) and, whenever one closes (after every dbt node), uncaches
        every temporary view of that session, analysing each view's plan again
        (SparkSQLSessionManager.closeSession): with the `__dbt_tmp` views of an incremental run
        left, 5-10 s a close. Replaced, not dropped: a close on another thread lists the names
        first and fails on one dropped meanwhile (TABLE_OR_VIEW_NOT_FOUND). Runs its statement
        itself.
    -#}
    {%- if execute -%}
        {%- call statement('cdc_release_temp_view', fetch_result=False) -%}
            create or replace temporary view {{ identifier }} as select 1 as cdc_released where false
        {%- endcall -%}
    {%- endif -%}
{% endmacro %}
