"""The anchors' rows checked equal, after they ran (not timed).

Every anchor of a size holds one state: the full PySpark job's parquet and DuckDB's full
state after the full step; the parquet and Delta states of the incremental PySpark jobs and
DuckDB's state after the increment, and, as their reference, DuckDB's full run over every
file landed by then. The check reads them all into DuckDB (a Delta state is first exported
to parquet by Spark) and compares them as sets of rows: source table, key, op, position and
row image. Image values are compared as numbers where both read as one (Spark writes a
JSON number it reads as text the JVM's way, `1.0E7`, DuckDB as `10000000.0`), else as text.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.bench.baseline import LIVE_ROWS, STATE_COLUMNS
from workbench.bench.settings import BASELINE_RESULT_TAG

SAMPLE_DIFFERENCES = 5
"""Rows shown of each side of a difference."""


@dataclass(frozen=True)
class AnchorState:
    """One anchor's state: a parquet folder (``parquet``; partitioned or not; a Delta
    state is exported to one first) or a DuckDB database file (``duckdb``, its table
    ``state``)."""

    name: str
    kind: str
    path: Path

    def relation(self) -> str:
        """The state as a DuckDB relation of STATE_COLUMNS."""
        columns = ", ".join(STATE_COLUMNS)
        if self.kind == "duckdb":
            return f"(select {columns} from {_alias(self.name)}.state)"
        pattern = str(self.path) + "/**/*.parquet"
        return (
            f"(select {columns} from read_parquet({_quoted(pattern)}, hive_partitioning = true, "
            "hive_types_autocast = false, union_by_name = true))"
        )


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _alias(name: str) -> str:
    return "anchor_" + "".join(c if c.isalnum() else "_" for c in name)


def canonical_sql(relation: str) -> str:
    """One row per state row with its image as a sorted list of (column, value), values
    as numbers where they read as one."""
    value = "coalesce(cast(try_cast(entry.value as double) as varchar), entry.value)"
    return f"""
        select
            source_db, source_schema, source_table, key, op, position,
            list_sort(
                list_transform(map_entries(image), lambda entry: {{'k': entry.key, 'v': {value}}})
            ) as image
        from {relation}
    """


def compare(con: Any, left: str, right: str) -> dict[str, Any]:
    """Rows of ``left`` not in ``right`` and the reverse (relations of STATE_COLUMNS; with
    duplicates counted), a few of each."""
    outcome: dict[str, Any] = {}
    for side, (a, b) in (("only_left", (left, right)), ("only_right", (right, left))):
        rows = con.execute(
            f"select * from ({canonical_sql(a)} except all {canonical_sql(b)}) "
            "order by source_db, source_schema, source_table, key"
        ).fetchall()
        outcome[side] = len(rows)
        outcome[f"{side}_sample"] = [str(row)[:400] for row in rows[:SAMPLE_DIFFERENCES]]
    return outcome


def live_rows(con: Any, relation: str) -> int:
    ((count,),) = con.execute(f"select count(*) from {relation} where {LIVE_ROWS}").fetchall()
    return int(count)


def check_states(
    groups: Mapping[str, Sequence[AnchorState]], references: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Each group's states compared with its first (or with the DuckDB relation SQL
    ``references[group]``, named `reference`): per state its current rows, per comparison
    the rows on either side only. ``equal``: every comparison found none."""
    import duckdb

    con = duckdb.connect()
    attached: set[str] = set()
    result: dict[str, Any] = {"groups": {}, "equal": True}
    for group, states in groups.items():
        for state in states:
            if state.kind == "duckdb" and state.name not in attached:
                path, alias = _quoted(str(state.path)), _alias(state.name)
                con.execute(f"attach {path} as {alias} (read_only)")
                attached.add(state.name)
        named = [(s.name, s.relation()) for s in states]
        if references and group in references:
            con.execute(f"create or replace temp table reference_{group} as {references[group]}")
            named.insert(0, ("reference", f"reference_{group}"))
        if not named:
            continue
        first_name, first = named[0]
        rows = {name: live_rows(con, relation) for name, relation in named}
        comparisons = []
        for name, relation in named[1:]:
            found = compare(con, first, relation)
            comparisons.append({"left": first_name, "right": name, **found})
            if found["only_left"] or found["only_right"]:
                result["equal"] = False
        result["groups"][group] = {"rows": rows, "comparisons": comparisons}
    con.close()
    return result


def export_delta(spark: Any, table: Path, out: Path) -> None:
    """A Delta table's current rows as one parquet folder DuckDB reads (deletion vectors
    applied)."""
    spark.read.format("delta").load(str(table)).write.mode("overwrite").parquet(str(out))


def check_lines(result: Mapping[str, Any]) -> list[str]:
    """The check in a few lines: rows per state, and each difference."""
    lines = []
    for group, found in result.get("groups", {}).items():
        rows = ", ".join(f"{name} {count:,}" for name, count in found["rows"].items())
        lines.append(f"{group}: current rows {rows}")
        for comparison in found["comparisons"]:
            if comparison["only_left"] or comparison["only_right"]:
                lines.append(
                    f"  {comparison['left']} vs {comparison['right']}: "
                    f"{comparison['only_left']:,} rows only in {comparison['left']}, "
                    f"{comparison['only_right']:,} only in {comparison['right']}"
                )
                for row in comparison["only_left_sample"] + comparison["only_right_sample"]:
                    lines.append(f"    {row}")
    verdict = "equal" if result.get("equal") else "DIFFERENT"
    lines.insert(0, f"The anchors' rows are {verdict}.")
    return lines


def check_main(
    groups: Mapping[str, Sequence[AnchorState]],
    references: Mapping[str, Path],
    delta_exports: Mapping[Path, Path],
) -> int:
    """The check as the bench runs it, in a process of its own: Delta states exported
    (``delta_exports``: table -> parquet folder; a Spark session on the `delta` target),
    DuckDB's full run over each folder of ``references`` as that group's reference, the
    result printed as JSON after BASELINE_RESULT_TAG."""
    from workbench.bench import duckdb_anchor

    started = time.monotonic()
    if delta_exports:
        from workbench.bench.baseline import baseline_spark

        spark = baseline_spark("delta")
        for table, out in delta_exports.items():
            export_delta(spark, table, out)
        spark.stop()
    sql = {
        group: duckdb_anchor.current_sql(duckdb_anchor.changes_sql(folder))
        for group, folder in references.items()
    }
    result = check_states(groups, sql)
    result["check_s"] = round(time.monotonic() - started, 2)
    print(BASELINE_RESULT_TAG + json.dumps(result), flush=True)
    return 0
