"""DuckDB's anchor: the baseline's rules on the same landing, in another engine.

The same rules as the hand-written PySpark jobs (:mod:`workbench.bench.baseline`), in one
SQL text: every line read as text, the message value taken from a ``kcat -J`` record or
the line, parsed once into the same envelope (row images as ``MAP(VARCHAR, VARCHAR)``),
the same position and key expressions, each key's latest change, deletes and rows before
their table's latest truncate dropped, that truncate kept as the table's marker. The state
is one table of a DuckDB database file: the full run creates it, the incremental run
applies the new files to it row by row (a truncate deletes its table's older rows, a newer
change replaces its key's row, new keys are inserted), in one transaction.

`duckdb` is the bench's optional dependency (pyproject's `bench` extra), pinned in
requirements.lock and installed by `make setup`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from workbench.bench.baseline import (
    BASELINE_POSITION_SQL,
    LIVE_OR_MARKER,
    LIVE_ROWS,
    STATE_COLUMNS,
    TABLE_COLUMNS,
    baseline_key_sql,
    report_result,
)

STATE_TABLE = "state"
_SOURCE_FIELDS = (
    "connector",
    "db",
    "schema",
    "table",
    "snapshot",
    "scn",
    "commit_scn",
    "change_lsn",
    "commit_lsn",
    "event_serial_no",
)
_SOURCE = "{" + ", ".join(f'"{name}": "VARCHAR"' for name in _SOURCE_FIELDS) + "}"
_PAYLOAD = (
    '"before": "MAP(VARCHAR, VARCHAR)", "after": "MAP(VARCHAR, VARCHAR)", '
    f'"op": "VARCHAR", "source": {_SOURCE}'
)
ENVELOPE_STRUCTURE = "{" + f'"payload": {{{_PAYLOAD}}}, {_PAYLOAD}' + "}"
"""The baseline's envelope (BASELINE_ENVELOPE_SCHEMA) as a DuckDB JSON structure."""
_COLUMNS = ", ".join(STATE_COLUMNS)
_TABLE = ", ".join(TABLE_COLUMNS)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def lines_sql(folder: Path) -> str:
    """Every line of every file under ``folder`` as the column ``value``: a CSV read with
    a separator that JSON text never holds (a raw control character), no quotes, no
    header, no type detection and no partition columns from folder names."""
    return (
        f"read_csv({_quoted(str(folder) + '/**')}, columns = {{'value': 'VARCHAR'}}, "
        "header = false, delim = chr(1), quote = '', escape = '', auto_detect = false, "
        "hive_partitioning = false, max_line_size = 1073741824)"
    )


def changes_sql(folder: Path) -> str:
    """Every line under ``folder`` as one change (STATE_COLUMNS), parsed once: the SQL of
    `baseline.baseline_changes`. An unreadable message is null, as Spark's is."""
    return f"""
        with lines as (select value from {lines_sql(folder)}),
        messages as (
            select case
                when starts_with(value, '{{"topic":') then json_extract_string(value, '$.payload')
                when trim(value) <> 'null' then value
            end as message
            from lines
        ),
        parsed as (
            select try(from_json(message, {_quoted(ENVELOPE_STRUCTURE)})) as e from messages
        ),
        envelopes as (
            select
                coalesce(e.payload.op, e.op) as op,
                coalesce(e.payload.before, e.before) as before,
                coalesce(e.payload.after, e.after) as after,
                coalesce(e.payload.source, e.source) as source
            from parsed
        )
        select
            source.db as source_db,
            source.schema as source_schema,
            lower(source.table) as source_table,
            op,
            {BASELINE_POSITION_SQL} as position,
            case when op = 'd' then before else after end as image,
            case when op = 't' then null else {baseline_key_sql()} end as key
        from envelopes
    """


def latest_sql(changes: str) -> str:
    """Each key's latest change of the relation ``changes`` (`baseline.latest_changes`)."""
    return f"""
        select {_COLUMNS} from (
            select *, row_number() over (
                partition by {_TABLE}, key order by position desc
            ) as rank
            from ({changes})
        )
        where rank = 1
    """


def current_sql(changes: str) -> str:
    """The state of the relation ``changes`` (`baseline.current_rows`)."""
    return f"""
        select {_COLUMNS} from (
            select *, max(case when op = 't' then position end) over (
                partition by {_TABLE}
            ) as truncated_at
            from ({latest_sql(changes)})
        )
        where {LIVE_OR_MARKER}
    """


def _same(left: str, right: str, columns: tuple[str, ...] = TABLE_COLUMNS) -> str:
    return " and ".join(f"{left}.{c} is not distinct from {right}.{c}" for c in columns)


def full_run(con: Any, landing: Path) -> None:
    """The state of every file under ``landing``, written as the table STATE_TABLE."""
    con.execute(f"create or replace table {STATE_TABLE} as {current_sql(changes_sql(landing))}")


def incremental_run(con: Any, new_files: Path) -> None:
    """The files under ``new_files`` applied to STATE_TABLE in one transaction: parsed once
    into each key's latest change; each table's latest new truncate deletes its rows at or
    before it; a key with a newer change loses its row; the new live rows (not before a new
    truncate) and markers whose key has no row left are inserted."""
    if not any(path.is_file() for path in new_files.rglob("*")):
        return
    con.execute("begin transaction")
    con.execute(f"create temp table latest as {latest_sql(changes_sql(new_files))}")
    con.execute(
        f"""
        create temp table truncates as
        select {_TABLE}, max(position) as truncated_at from latest where op = 't' group by all
        """
    )
    con.execute(
        f"""
        delete from {STATE_TABLE} using truncates
        where {_same(STATE_TABLE, "truncates")} and {STATE_TABLE}.position <= truncates.truncated_at
        """
    )
    con.execute(
        f"""
        delete from {STATE_TABLE} using latest
        where {_same(STATE_TABLE, "latest", (*TABLE_COLUMNS, "key"))}
            and latest.position > {STATE_TABLE}.position
        """
    )
    con.execute(
        f"""
        insert into {STATE_TABLE}
        select {", ".join(f"latest.{c}" for c in STATE_COLUMNS)}
        from latest left join truncates on {_same("latest", "truncates")}
        where ({LIVE_OR_MARKER})
            and not exists (
                select 1 from {STATE_TABLE} s
                where {_same("s", "latest", (*TABLE_COLUMNS, "key"))}
            )
        """
    )
    con.execute("drop table latest")
    con.execute("drop table truncates")
    con.execute("commit")


def live_rows(con: Any) -> int:
    """The state's current rows (its truncate markers aside)."""
    (count,) = con.execute(f"select count(*) from {STATE_TABLE} where {LIVE_ROWS}").fetchall()
    return int(count[0])


def connect(database: Path, read_only: bool = False) -> Any:
    import duckdb

    return duckdb.connect(str(database), read_only=read_only)


def duckdb_main(mode: str, files: Path, database: Path) -> int:
    """``full``: the state of every file under ``files`` into the database file (a new
    one); ``incremental``: the files under ``files`` applied to it. Prints the job's
    seconds for the bench (BASELINE_RESULT_TAG)."""
    if mode == "full":
        database.parent.mkdir(parents=True, exist_ok=True)
        database.unlink(missing_ok=True)
    started = time.monotonic()
    con = connect(database)
    if mode == "full":
        full_run(con, files)
    else:
        incremental_run(con, files)
    con.close()
    report_result(time.monotonic() - started)
    return 0
