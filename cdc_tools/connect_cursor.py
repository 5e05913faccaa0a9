"""dbt-spark's session cursor on a Spark Connect client: one call to the server per statement.

dbt-spark's `method: session` cursor runs a statement as `spark.sql(sql)`, then reads its
columns (`df.schema`) and its rows (`df.collect()`). In-process, the first analyses the plan and
the others reuse it. On a Spark Connect client each is a call to the server, and the server
analyses the plan again for each: a query dbt fetches (a data test, a macro's `run_query`)
costs three round trips and three analyses of its plan. A command (DDL, an insert, `show
tblproperties`) runs in `spark.sql` and then costs two more calls to read its result.

`patch(cursor_class)` changes the cursor of a Connect target only (its settings name
`spark.remote`): a statement goes to the server as the plan `spark.sql` would return for a
query, and runs at once, in one call (`ExecutePlan`) that returns its rows and their schema.
The server plans a command in it as `spark.sql` does, and runs it once (an insert inserts
once); a query is analysed once. dbt-spark reads the rows and columns of that one answer.

The rows are what `collect()` returns (pyspark's own conversion of the result), and the
columns what `df.schema` says: dbt sees the same answers. Errors are raised where dbt-spark
raises them, in `execute`: an `AnalysisException` as dbt's runtime error. A query dbt does
not fetch runs too (in-process, Spark would only analyse it): dbt fetches what it asks.
"""

from __future__ import annotations

import functools
from typing import Any

WRAPPED_MARKER = "_cdc_connect_cursor"
REMOTE_OPTION = "spark.remote"


def _fetched(cursor: Any) -> tuple[list[Any], Any]:
    """The rows and schema of the cursor's statement, read once (one call to the server)."""
    found = getattr(cursor, "_cdc_fetched", None)
    if found is None:
        from pyspark.sql.conversion import ArrowTableToRowsConversion
        from pyspark.sql.pandas.types import from_arrow_schema

        table, schema = cursor._df._to_table()
        schema = schema or from_arrow_schema(table.schema, prefer_timestamp_ntz=True)
        found = (ArrowTableToRowsConversion.convert(table, schema), schema)
        cursor._cdc_fetched = found
    return found


def _is_remote(cursor: Any) -> bool:
    return bool((getattr(cursor, "server_side_parameters", None) or {}).get(REMOTE_OPTION))


def patch(cursor_class: type) -> None:
    """Give `cursor_class` (dbt.adapters.spark.session.Cursor) the one-call reads above on a
    Connect target (once; other targets keep dbt-spark's own)."""
    if getattr(cursor_class, WRAPPED_MARKER, False):
        return
    execute = cursor_class.execute
    description = cursor_class.description
    fetchall = cursor_class.fetchall
    fetchone = cursor_class.fetchone
    close = cursor_class.close

    @functools.wraps(execute)
    def patched_execute(self: Any, sql: str, *parameters: Any) -> None:
        self._cdc_fetched = None
        if not _is_remote(self):
            execute(self, sql, *parameters)
            return
        from dbt_common.exceptions import DbtRuntimeError
        from pyspark.errors import AnalysisException
        from pyspark.sql import SparkSession
        from pyspark.sql.connect.dataframe import DataFrame
        from pyspark.sql.connect.plan import SQL

        if parameters:
            sql = sql % parameters
        builder = SparkSession.builder.enableHiveSupport()
        for parameter, value in self.server_side_parameters.items():
            builder = builder.config(parameter, value)
        session = builder.getOrCreate()
        self._df = DataFrame(SQL(sql), session)
        self._rows = None
        try:
            _fetched(self)
        except AnalysisException as exc:
            raise DbtRuntimeError(str(exc)) from exc

    def patched_description(self: Any) -> Any:
        if not _is_remote(self) or self._df is None:
            return description.fget(self)  # type: ignore[attr-defined]
        _, schema = _fetched(self)
        return [
            (field.name, field.dataType.simpleString(), None, None, None, None, field.nullable)
            for field in schema.fields
        ]

    @functools.wraps(fetchall)
    def patched_fetchall(self: Any) -> Any:
        if not _is_remote(self) or self._df is None:
            return fetchall(self)
        if self._rows is None:
            self._rows = _fetched(self)[0]
        return self._rows

    @functools.wraps(fetchone)
    def patched_fetchone(self: Any) -> Any:
        if not _is_remote(self) or self._df is None:
            return fetchone(self)
        if self._rows is None:
            self._rows = list(_fetched(self)[0])
        return self._rows.pop(0) if self._rows else None

    @functools.wraps(close)
    def patched_close(self: Any) -> None:
        self._cdc_fetched = None
        close(self)

    cursor_class.execute = patched_execute  # type: ignore[attr-defined]
    cursor_class.description = property(patched_description)  # type: ignore[attr-defined]
    cursor_class.fetchall = patched_fetchall  # type: ignore[attr-defined]
    cursor_class.fetchone = patched_fetchone  # type: ignore[attr-defined]
    cursor_class.close = patched_close  # type: ignore[attr-defined]
    setattr(cursor_class, WRAPPED_MARKER, True)
