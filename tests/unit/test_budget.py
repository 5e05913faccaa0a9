"""The statement budget per node kind (workbench.bench.budget) and the count it is held to
(cdc_tools.dbt_invoke.StatementLog), without Spark."""

from __future__ import annotations

from types import SimpleNamespace

from cdc_tools.dbt_invoke import StatementLog
from cdc_tools.local_spark import REPO_ROOT
from workbench.bench.budget import (
    BUDGET,
    RUN_KINDS,
    bench_budget_rows,
    node_kind,
    overruns,
    project_model_kinds,
)


def _event(name: str, node: str, sql: str = "select 1") -> SimpleNamespace:
    return SimpleNamespace(
        info=SimpleNamespace(name=name),
        data=SimpleNamespace(node_info=SimpleNamespace(unique_id=node), sql=sql),
    )


def test_the_log_counts_each_node_s_sql_queries_and_nothing_else() -> None:
    log = StatementLog()
    for event in (
        _event("SQLQuery", "model.p.a"),
        _event("SQLQuery", "model.p.a", "show tblproperties t"),
        _event("SQLQueryStatus", "model.p.a"),
        _event("SQLQuery", ""),
    ):
        log(event)
    assert log.counts() == {"model.p.a": 2, "": 1}


def test_every_kind_has_a_budget_for_every_run() -> None:
    for kind, runs in BUDGET.items():
        assert set(runs) == set(RUN_KINDS), kind


def test_a_node_beyond_its_budget_is_named() -> None:
    budget = BUDGET["gold parquet"]["incremental"]
    counts = {"model.p.customers": budget + 1, "model.p.orders": budget}
    kinds = {node: "gold parquet" for node in counts}
    (found,) = overruns(counts, kinds, "incremental")
    assert found.node == "model.p.customers"
    assert f"budget {budget}" in str(found)
    assert overruns({"seed.p.s": 99}, {"seed.p.s": None}, "full") == []


def test_node_kinds() -> None:
    assert node_kind("test", None, None, ()) == "data test"
    assert node_kind("model", "cdc_current_state", "delta", ("p", "gold")) == "gold delta"
    assert node_kind("model", "cdc_current_state", None, ("p", "gold")) == "gold parquet"
    assert node_kind("model", "cdc_incremental", None, ("p", "bronze", "b")) == "bronze"
    assert node_kind("seed", None, None, ()) is None


def test_the_bench_names_the_kind_of_each_model_and_says_whether_it_is_met() -> None:
    kinds = project_model_kinds(REPO_ROOT, "delta")
    assert kinds["model bronze_cdc_messages"] == "bronze"
    assert kinds["model customers"] == "gold delta"
    assert kinds["model customer_history"] == "history"
    assert kinds["model stg_cdc__messages"] == "silver"
    over = BUDGET["gold delta"]["incremental"] + 1
    rows = bench_budget_rows(
        {"delta": {"incremental": {"model customers": over, "test cdc_column_checks_x": 1}}},
        REPO_ROOT,
    )
    assert ["delta", "incremental", "gold delta", 1, over, "model customers"] == rows[1][:6]
    assert rows[1][-1] == "NO"
    assert rows[0][2] == "data test" and rows[0][-1] == "yes"
