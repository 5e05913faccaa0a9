"""Where a dbt build's time goes: per node kind, the nodes' seconds, the statements they sent
and those statements' seconds, and the rest, dbt's own work in the client (issue 64).

dbt writes every statement it sends as a structured `SQLQuery` event and its end as
`SQLQueryStatus` in its log file, which the bench's steps write as JSON lines
(`--log-format-file json`, one log folder per step). `SQLQueryStatus.elapsed` times the
cursor's `execute`: Spark's `sql()`, which runs a command (DDL, an insert, `show
tblproperties`, `describe`) and analyses a query; a query's rows (a data test's count, a
macro's `run_query`) are collected after it, in what this module counts as the client's
share. A node's seconds (run_results.json) minus its statements' seconds is that share:
rendering Jinja, running macros, dbt's bookkeeping, and the queries' collection. What
happens before the first node (imports, parse, the session, the relation cache) is the
step's start (`workbench.bench.timings.setup_seconds`). On the `connect` target the client's
CPU seconds (the step's CPU s) are dbt's own work alone: Spark runs in the server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.bench.budget import LAKEHOUSE_FORMATS, project_model_kinds
from workbench.bench.timings import node_timings, setup_seconds, short_name

PROFILE_HEADERS: tuple[str, ...] = (
    "format",
    "step",
    "node kind",
    "nodes",
    "node s",
    "statements",
    "statement s",
    "client s",
)
START_KIND = "(start: before the first node)"


def statement_times(log_path: Path) -> dict[str, list[float]]:
    """``{node unique id: [statements, seconds]}`` from a dbt log file of JSON lines ("" for
    statements of no node, such as the listing at the start). Lines that are not JSON (a
    log written as text) are skipped: the result is then empty."""
    found: dict[str, list[float]] = {}
    if not log_path.is_file():
        return found
    with log_path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if '"SQLQuery' not in line:
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            name = (event.get("info") or {}).get("name")
            data = event.get("data") or {}
            node = str((data.get("node_info") or {}).get("unique_id") or "")
            if name == "SQLQuery":
                found.setdefault(node, [0, 0.0])[0] += 1
            elif name == "SQLQueryStatus":
                found.setdefault(node, [0, 0.0])[1] += float(data.get("elapsed") or 0.0)
    return found


def by_short_name(times: Mapping[str, list[float]]) -> dict[str, list[float]]:
    """`statement_times` keyed by the bench's node names."""
    return {short_name(node) if node else "": value for node, value in times.items()}


def profile_rows(
    fmt: str,
    step: str,
    run_results: Mapping[str, Any],
    statements: Mapping[str, list[float]],
    root: Path,
) -> list[list[Any]]:
    """One row per node kind (the budget's kinds, workbench.bench.budget) of one step, and
    one for the step's start: nodes, their seconds, the statements they sent, those
    statements' seconds, and the client's share (node s - statement s)."""
    kinds = project_model_kinds(root, fmt if fmt in LAKEHOUSE_FORMATS else "parquet")
    totals: dict[str, list[float]] = {}
    for node in node_timings(run_results):
        name = node.short_name
        kind = "data test" if name.startswith("test ") else kinds.get(name) or node.kind
        sent, seconds = statements.get(name, [0, 0.0])
        row = totals.setdefault(kind, [0, 0.0, 0, 0.0])
        row[0] += 1
        row[1] += node.seconds
        row[2] += int(sent)
        row[3] += seconds
    rows: list[list[Any]] = []
    start = setup_seconds(run_results)
    if start is not None:
        sent, seconds = statements.get("", [0, 0.0])
        rows.append(
            [fmt, step, START_KIND, "", round(start, 2), int(sent), round(seconds, 2),
             round(start - seconds, 2)]
        )  # fmt: skip
    for kind in sorted(totals, key=lambda k: -totals[k][1]):
        nodes, node_s, sent, seconds = totals[kind]
        rows.append(
            [fmt, step, kind, int(nodes), round(node_s, 2), int(sent), round(seconds, 2),
             round(node_s - seconds, 2)]
        )  # fmt: skip
    return rows
