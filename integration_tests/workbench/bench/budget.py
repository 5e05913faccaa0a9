"""The statement budget per dbt node: how many statements a node of each kind may send to
Spark in one build (issue 64, decision 0020).

Every statement is a round trip, and on a cold JVM or a remote target (Thrift) a costly one, so
a node is held to a budget: the statements dbt sends for it (its structured `SQLQuery`
events, metadata ones such as `show tblproperties` and `describe` included), per node kind and
run kind. The test suite asserts it on the builds it already runs
(tests/e2e/test_statement_budget.py, tests/e2e/test_delta_gold.py), and the bench prints it
beside each node's statements (`workbench.bench.formats`).

Run kinds: `full` (no state yet, or `--full-refresh`), `incremental` (new input), `no-op`
(nothing new: the node leaves its relation as it is). A node of an incremental build whose
inputs held nothing new counts against the incremental budget too, which it meets.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RUN_KINDS: tuple[str, ...] = ("full", "incremental", "no-op")
LAKEHOUSE_FORMATS: tuple[str, ...] = ("delta", "iceberg", "hudi")

# node kind -> run kind -> the most statements one node of that kind may send
BUDGET: Mapping[str, Mapping[str, int]] = {
    # the landing listing reads `spark.sql.shuffle.partitions` once per run (decision 0038)
    "bronze": {"full": 18, "incremental": 21, "no-op": 9},
    # int_cdc__document_changes, the fold of document sources, is the most (its table of
    # latest versions); the typed models are 9 in an incremental run
    "silver": {"full": 11, "incremental": 15, "no-op": 12},
    # decision 0023: the delta path 8 (GOLD_PARQUET_DELTA_PATH), 9 with a truncate (the
    # session's overwrite mode), a compaction 10; 13 left room for the carry-over's
    # candidates (3 statements), which moved to silver (decision 0042): not tightened yet
    "gold parquet": {"full": 11, "incremental": 13, "no-op": 1},
    # 7 without a truncate; the two truncate MERGEs, the DELETE of expired tombstones and
    # the switch of Delta's change data feed on a state built without it: 11
    "gold delta": {"full": 11, "incremental": 11, "no-op": 1},
    "gold iceberg": {"full": 11, "incremental": 11, "no-op": 1},
    "history": {"full": 7, "incremental": 10, "no-op": 2},
    "data test": {"full": 3, "incremental": 3, "no-op": 3},
}


# a gold incremental run on parquet that takes the delta path without a truncate (issue 64's
# aim; decision 0023): the state's properties, `describe query`, the
# batch, the questions, the staging, `staged`, the overwrite, the read-through with `applied`
GOLD_PARQUET_DELTA_PATH = 8


def node_kind(
    resource_type: str, materialized: str | None, file_format: str | None, fqn: Iterable[str]
) -> str | None:
    """The budget's kind of a node, from its manifest entry (None: a kind without a budget,
    such as a seed)."""
    if resource_type == "test":
        return "data test"
    if resource_type != "model":
        return None
    if materialized == "cdc_current_state":
        return f"gold {file_format or 'parquet'}"
    if materialized == "cdc_history":
        return "history"
    if "bronze" in fqn:
        return "bronze"
    return "silver"


def manifest_node_kind(node: Mapping[str, Any]) -> str | None:
    """`node_kind` of a node of manifest.json."""
    config = node.get("config") or {}
    return node_kind(
        str(node.get("resource_type")),
        config.get("materialized"),
        config.get("file_format"),
        node.get("fqn") or (),
    )


def budget_of(kind: str | None, run: str) -> int | None:
    """The budget of a node kind in a run kind, or None without one."""
    if kind is None:
        return None
    return BUDGET.get(kind, {}).get(run)


@dataclass(frozen=True)
class Overrun:
    """A node that sent more statements than its budget."""

    node: str
    kind: str
    run: str
    statements: int
    budget: int

    def __str__(self) -> str:
        return (
            f"{self.node} ({self.kind}, {self.run} run): {self.statements} statements, "
            f"budget {self.budget}"
        )


def overruns(counts: Mapping[str, int], kinds: Mapping[str, str | None], run: str) -> list[Overrun]:
    """The nodes of `counts` (node -> statements) beyond the budget of their kind
    (`kinds`: node -> kind) in a `run`."""
    found = []
    for node, statements in sorted(counts.items()):
        kind = kinds.get(node)
        budget = budget_of(kind, run)
        if kind is not None and budget is not None and statements > budget:
            found.append(Overrun(node, kind, run, statements, budget))
    return found


def result_node_kinds(results: Iterable[Any]) -> dict[str, str | None]:
    """`node_kind` of every node of a dbtRunnerResult's results (in-process dbt), by unique id."""
    return {
        r.node.unique_id: node_kind(
            str(getattr(r.node.resource_type, "value", r.node.resource_type)),
            r.node.config.materialized,
            r.node.config.get("file_format"),
            r.node.fqn,
        )
        for r in results
    }


# -- the bench's table: its node names are `model <name>` and `test <name>` (spark_profile)

MODEL_FOLDERS: tuple[str, ...] = ("models", "integration_tests/models")
_MATERIALIZED = re.compile(r"materialized\s*=\s*['\"](\w+)['\"]")


def project_model_kinds(root: Path, gold_format: str) -> dict[str, str | None]:
    """The budget's kind of each model of the package and of the consumer project the bench
    builds (`model <name>`), from its SQL file: its `materialized` config and its folder."""
    kinds: dict[str, str | None] = {}
    for folder in MODEL_FOLDERS:
        for path in sorted((root / folder).rglob("*.sql")):
            found = _MATERIALIZED.search(path.read_text(errors="replace"))
            materialized = found.group(1) if found else None
            file_format = gold_format if materialized == "cdc_current_state" else None
            parts = path.relative_to(root / folder).parts
            kinds[f"model {path.stem}"] = node_kind("model", materialized, file_format, parts)
    return kinds


def bench_budget_rows(
    counts: Mapping[str, Mapping[str, Mapping[str, int]]], root: Path
) -> list[list[Any]]:
    """One row per gold format, step and node kind, from ``counts[format][step][node]`` (the
    statements of each node, from the bench's event logs): the kind's nodes, the most
    statements one of them sent (and which), the budget and whether it is met."""
    rows: list[list[Any]] = []
    for fmt, by_step in counts.items():
        # a column of the bench that is no table format (`connect`) builds gold on parquet
        kinds = project_model_kinds(root, fmt if fmt in LAKEHOUSE_FORMATS else "parquet")
        for step in RUN_KINDS:
            nodes = by_step.get(step)
            if not nodes:
                continue
            by_kind: dict[str, list[tuple[int, str]]] = {}
            for node, statements in nodes.items():
                kind = "data test" if node.startswith("test ") else kinds.get(node)
                if kind is not None:
                    by_kind.setdefault(kind, []).append((statements, node))
            for kind in sorted(by_kind):
                most, node = max(by_kind[kind])
                budget = budget_of(kind, step)
                met = "n/a" if budget is None else ("yes" if most <= budget else "NO")
                rows.append([fmt, step, kind, len(by_kind[kind]), most, node, budget, met])
    return rows


BUDGET_HEADERS: tuple[str, ...] = (
    "format",
    "step",
    "node kind",
    "nodes",
    "most statements",
    "node",
    "budget",
    "met",
)
