"""Every node of the shared stream's builds sends no more statements to Spark than the budget of
its kind (workbench.bench.budget, decision 0020): the full build, the incremental ones (the
delta path at `batch1`, the compaction at `replay`), the build with nothing new and the full
refresh.

No build of its own: it counts the statements of the stream's builds (tests/e2e/stream.py),
which `run_dbt` keeps (dbt's structured `SQLQuery` events, `cdc_tools.dbt_invoke.StatementLog`:
every statement dbt sends, `show tblproperties` and `describe` included). It registers no part,
so it runs on the stream's worker and reads the stream as the other modules built it.
"""

from __future__ import annotations

import pytest

from workbench.bench.budget import (
    GOLD_PARQUET_DELTA_PATH,
    budget_of,
    overruns,
    result_node_kinds,
)

pytestmark = pytest.mark.spark

# the run kind of each step's build (workbench.bench.budget.RUN_KINDS)
RUNS: dict[str, str] = {
    "batch0": "full",
    "batch1": "incremental",
    "noop": "no-op",
    "replay": "incremental",
    "full_refresh": "full",
}


@pytest.mark.parametrize("step", [pytest.param(s, marks=pytest.mark.stream(s)) for s in RUNS])
def test_every_node_keeps_its_statement_budget(stream, step: str) -> None:  # type: ignore[no-untyped-def]
    stream.at(step)
    result = stream.results[step]
    counts = result.statements.counts()
    kinds = result_node_kinds(result.result.results)
    assert overruns(counts, kinds, RUNS[step]) == []
    # the count reached the nodes
    assert any(counts.get(node, 0) > 0 for node in kinds)


@pytest.mark.stream("batch1")
def test_a_gold_incremental_run_on_parquet_keeps_its_budget(stream) -> None:  # type: ignore[no-untyped-def]
    """The gold models that applied a batch at `batch1` (the delta path) did it within the
    budget of a gold incremental run on parquet, every metadata statement counted; those
    without a truncate in GOLD_PARQUET_DELTA_PATH (8, decision 0023)."""
    stream.at("batch1")
    result = stream.results["batch1"]
    counts = result.statements.counts()
    kinds = result_node_kinds(result.result.results)
    budget = budget_of("gold parquet", "incremental")
    no_op = budget_of("gold parquet", "no-op")
    assert budget is not None and no_op is not None
    applied = {
        node: n for node, n in counts.items() if kinds.get(node) == "gold parquet" and n > no_op
    }
    assert applied, "no gold model applied a batch at batch1"
    assert max(applied.values()) <= budget, applied
    # the delta path without a truncate (no session setting: the delta partition is
    # overwritten by a static spec): issue 64's aim
    plain = {
        node: n
        for node, n in applied.items()
        if not any(
            "partitionoverwritemode" in sql.lower() for sql in result.statements.by_node[node]
        )
    }
    assert plain, "no gold model took the plain delta path at batch1"
    assert max(plain.values()) <= GOLD_PARQUET_DELTA_PATH, plain
