"""Settings shared by the benchmark's modules: sizes, targets, steps, the floor project."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

DEFAULT_EVENTS = 1_000_000
DEFAULT_INCREMENT_FRACTION = 0.01
DEFAULT_RESULTS_DIR = Path("results/bench")
DEFAULT_FLAVOURS: tuple[str, ...] = ("oracle", "sqlserver", "db2")
DEFAULT_LARGE_FILE_MB = 1024
"""The large-file scenario's one landing file (#28: a file of about 1 GB loads on the
default driver memory)."""
DEFAULT_BATCH_EVENTS = 10_000
"""Messages per simulated batch, i.e. per landing file (per topic for value-line files)."""

SNAPSHOT_SHARE = 0.1
"""Share of every source's events that are its initial snapshot (op ``r``)."""
INITIAL_ROW_WEIGHTS: Mapping[str, int] = {"customers": 2, "orders": 3, "order_lines": 4}
MESSAGES_PER_TRANSACTION = 3.6
"""Measured average of the simulator's workload (1-5 changes, tombstones after deletes)."""

# #28's targets: full build <= 3.0x the baseline, the increment's share, full peak RSS, and
# the same increment at the largest --scaling size against --events (cost follows the batch)
FULL_OVER_BASELINE_TARGET = 3.0
FULL_PEAK_RSS_TARGET_MB = 4096
INCREMENTAL_SHARE_TARGET = 0.05
INCREMENTAL_GROWTH_TARGET = 1.25
SAMPLE_INTERVAL_S = 0.2
BASELINE_RESULT_TAG = "BENCH_BASELINE_RESULT "
ANCHOR_FULL_STEPS: tuple[str, ...] = ("baseline", "duckdb-full")
"""The anchors of the full step: the hand-written PySpark job (`baseline`) and DuckDB."""
ANCHOR_INCREMENTAL_STEPS: tuple[str, ...] = (
    "baseline-incremental",
    "baseline-incremental-delta",
    "duckdb-incremental",
)
"""The anchors of the incremental step: the hand-written PySpark job on parquet and on
Delta, and DuckDB, each applying the increment to the state its full step wrote."""
ANCHOR_STEPS: tuple[str, ...] = (*ANCHOR_FULL_STEPS, *ANCHOR_INCREMENTAL_STEPS)
STEPS: tuple[str, ...] = (
    "full",
    "incremental",
    "no-op",
    "floor",
    "baseline",
    "first-build",
    "duckdb-full",
    "baseline-incremental",
    "baseline-incremental-delta",
    "duckdb-incremental",
)
# The smallest dbt build on the same profile: one table model of one row. Its time is what any
# invocation pays (Python and dbt start, parse, the Spark JVM, metastore, one write), the
# floor under the no-op run.
FLOOR_PROJECT: dict[str, str] = {
    "dbt_project.yml": (
        "name: cdc_bench_floor\nversion: '1.0'\nconfig-version: 2\nprofile: cdc_spark\n"
        "model-paths: [models]\n"
        # as the consumer project: dbt's usage events cost each invocation 0.2 s of CPU
        "flags:\n  send_anonymous_usage_stats: false\n"
    ),
    "models/floor.sql": "{{ config(materialized='table') }}\n\nselect 1 as one\n",
}


class BenchError(RuntimeError):
    """A measured subprocess failed or the generated data is not what was planned."""
