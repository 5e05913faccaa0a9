"""The anchors: what the same work costs written by hand, measured beside every build.

At every size the bench runs, after the full builds, the hand-written PySpark job over
the same files (`baseline`) and DuckDB's run of the same rules (`duckdb-full`); after the
incremental builds, the same increment applied to the state those wrote by a hand-written
PySpark job on parquet (`baseline-incremental`) and on Delta
(`baseline-incremental-delta`), and by DuckDB (`duckdb-incremental`). Each is a measured
subprocess (`python -m workbench.bench --anchor STEP --workspace DIR`). Not timed: the
parquet and Delta states made from the full baseline's output (`anchor-prepare`), and the
check that every anchor holds the same rows (`anchor-check`, workbench.bench.anchor_check).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from workbench.bench.settings import BenchError
from workbench.bench.steps import StepResult, Workspace, run_anchor_step


def delta_anchor_available() -> bool:
    """Whether Delta's jars (`make setup`) are there for the Delta anchor."""
    from cdc_tools.spark_jars import jars_dir
    from workbench.bench.formats import missing_format_jars

    return not missing_format_jars(["delta"], jars_dir())


def run_full_anchors(events: int, ws: Workspace, delta: bool) -> dict[str, StepResult]:
    """The full step's anchors over ``ws.landing`` (before the increment lands), then the
    incremental anchors' states (not timed)."""
    steps = {
        "baseline": run_anchor_step("baseline", events, ws, delta),
        "duckdb-full": run_anchor_step("duckdb-full", events, ws, delta),
    }
    ws.anchors.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ws.duckdb_state, ws.duckdb_full_state)
    run_anchor_step("anchor-prepare", 0, ws, delta)
    return steps


def run_incremental_anchors(
    events: int, ws: Workspace, delta: bool
) -> tuple[dict[str, StepResult], dict[str, Any]]:
    """The incremental step's anchors, then the check of every anchor's rows (not timed):
    the steps and the check's result."""
    names = ["baseline-incremental", "duckdb-incremental"]
    if delta:
        names.insert(1, "baseline-incremental-delta")
    steps = {name: run_anchor_step(name, events, ws, delta) for name in names}
    check = run_anchor_step("anchor-check", 0, ws, delta).detail
    from workbench.bench.anchor_check import check_lines

    for line in check_lines(check):
        print(f"  [anchor-check] {line}", flush=True)
    return steps, check


def check_groups(ws: Workspace, delta: bool) -> dict[str, list[Any]]:
    """The states the check compares, by step: after the full step and after the
    increment."""
    from workbench.bench.anchor_check import AnchorState

    full = [
        AnchorState("baseline", "parquet", ws.baseline_out),
        AnchorState("duckdb-full", "duckdb", ws.duckdb_full_state),
    ]
    incremental = [AnchorState("baseline-incremental", "parquet", ws.parquet_state)]
    if delta:
        incremental.append(AnchorState("baseline-incremental-delta", "parquet", ws.delta_export))
    incremental.append(AnchorState("duckdb-incremental", "duckdb", ws.duckdb_state))
    return {"full": full, "incremental": incremental}


def anchor_main(step: str, root: Path, delta: bool) -> int:
    """One anchor in this process (the subprocess `run_anchor_step` measures)."""
    from workbench.bench import anchor_check, baseline, duckdb_anchor

    ws = Workspace(root)
    if step == "baseline":
        return baseline.baseline_main(ws.landing, ws.baseline_out)
    if step == "duckdb-full":
        return duckdb_anchor.duckdb_main("full", ws.landing, ws.duckdb_state)
    if step == "duckdb-incremental":
        return duckdb_anchor.duckdb_main("incremental", ws.anchor_increment, ws.duckdb_state)
    if step == "anchor-check":
        exports = {ws.delta_state: ws.delta_export} if delta else {}
        references = {"incremental": ws.landing}
        return anchor_check.check_main(check_groups(ws, delta), references, exports)
    jobs = {
        "anchor-prepare": lambda spark: baseline.prepare_states(
            spark, ws.baseline_out, ws.parquet_state, ws.delta_state if delta else None
        ),
        "baseline-incremental": lambda spark: baseline.incremental_parquet_job(
            spark, ws.anchor_increment, ws.parquet_state
        ),
        "baseline-incremental-delta": lambda spark: baseline.incremental_delta_job(
            spark, ws.anchor_increment, ws.delta_state
        ),
    }
    if step not in jobs:
        raise BenchError(f"no anchor {step!r}")
    uses_delta = step == "baseline-incremental-delta" or (step == "anchor-prepare" and delta)
    spark = baseline.baseline_spark("delta" if uses_delta else "local")
    started = time.monotonic()
    jobs[step](spark)
    job_s = time.monotonic() - started
    spark.stop()
    baseline.report_result(job_s)
    return 0
