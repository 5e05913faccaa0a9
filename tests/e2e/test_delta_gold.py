"""Gold and history on Delta Lake, executed: every rule of gold against the oracle.

A build of its own, in a process of its own: Delta's catalog is a static setting of a Spark
session and this worker's session is on the `local` target. The process
(tests/e2e/delta_gold_scenario.py) runs on the `delta` target with every gold model on
`file_format: delta` (var `cdc_gold_file_format`), builds two batches, replays the same files,
runs the maintenance operations and rebuilds with `--full-refresh`, comparing gold and
`customer_history` with the simulator's oracle after each step, all on one session; it prints
what it saw, and the tests below assert on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cdc_tools.local_spark import REPO_ROOT
from tests.conftest import process_env

pytestmark = pytest.mark.spark

STATE_MODELS = ("customers", "orders", "order_lines", "captured_rows", "customer_history")
CURRENT_STATE_MODELS = STATE_MODELS[:-1]


def _jars_dir() -> Path:
    return Path(os.environ.get("CDC_SPARK_JARS_DIR") or REPO_ROOT / "jars")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[type-arg]
    jars = _jars_dir()
    if not list(jars.glob("delta-spark_*.jar")) or not list(jars.glob("delta-storage-*.jar")):
        pytest.fail(f"Delta Lake's jars are not in {jars}: run `make setup` (it fetches them)")
    work = tmp_path_factory.mktemp("delta_gold")
    env = process_env(
        work / "spark",
        "t_delta",
        work / "landing",
        DBT_TARGET="delta",
        CDC_GOLD_FILE_FORMAT="delta",
        CDC_SPARK_JARS_DIR=str(jars),
        PYTHONUNBUFFERED="1",
    )
    log = work / "scenario.log"
    with log.open("wb") as out:
        finished = subprocess.run(
            [sys.executable, "-m", "tests.e2e.delta_gold_scenario", str(work)],
            env=env,
            cwd=REPO_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
            timeout=1500,
        )
    text = log.read_text(errors="replace")
    lines = [line for line in text.splitlines() if line.startswith("DELTA_REPORT ")]
    assert finished.returncode == 0 and lines, text[-6000:]
    return json.loads(lines[-1].removeprefix("DELTA_REPORT "))


def test_every_rule_of_gold_occurs_in_the_simulated_events(report) -> None:  # type: ignore[no-untyped-def]
    """The scenario cannot pass vacuously: in each batch the source inserts, updates and
    deletes customers and orders (soft-deleted in gold), changes customer keys, truncates
    order_lines and reads snapshots (the initial one, then an incremental one); changes of
    batch 0 arrive late, with batch 1, and a part of batch 0 is replayed."""
    for batch in ("0", "1"):
        events = report["events"][batch]
        for table in ("customers", "orders"):
            for op in "cud":
                assert events.get(f"{table}.{op}", 0) > 0, (batch, table, op, events)
        assert events.get("order_lines.t", 0) > 0, (batch, events)
        assert events.get("key_changes", 0) > 0, (batch, events)
        assert events.get("customers.r", 0) > 0 and events.get("orders.r", 0) > 0, events
    assert report["events"]["1"].get("incremental_snapshot_chunks", 0) > 0
    late_ops = {op for _, op in report["late"]}
    assert len(report["late"]) >= 4 and {"c", "u"} <= late_ops, report["late"]
    assert report["replayed"] > 0


@pytest.mark.parametrize("step", ["batch0", "batch1", "replay", "maintenance", "full_refresh"])
def test_gold_equals_the_oracle_after_each_step(report, step: str) -> None:  # type: ignore[no-untyped-def]
    """customers, orders (soft deletes), order_lines, captured_rows and customer_history
    (from batch 1 on, when every change is delivered) equal the source: after the first
    build, the incremental one (late and replayed events), the files read again,
    OPTIMIZE/VACUUM and the full refresh."""
    assert report[step]["differences"] == []


def test_gold_states_are_delta_tables_merged_by_the_runs(report) -> None:  # type: ignore[no-untyped-def]
    """Each state table (cdc_current_state and cdc_history) is a Delta table with its
    `_delta_log`, with deletion vectors; the incremental run MERGEd into the current states
    (DESCRIBE HISTORY) and marked replaced rows with deletion vectors; a full refresh
    creates them again as Delta tables."""
    for model in STATE_MODELS:
        for state in (report["state"][model], report["full_refresh"]["state"][model]):
            assert state["format"] == "delta" and state["delta_log"], (model, state)
            assert state["deletion_vectors"] == "true", (model, state)
        assert report["full_refresh"]["first_operation"][model] == "CREATE TABLE AS SELECT"
    for model in CURRENT_STATE_MODELS:
        assert "MERGE" in report["batch1"]["operations"][model], model
    # the history's run appends its batch
    assert "WRITE" in report["batch1"]["operations"]["customer_history"]
    assert report["batch1"]["deletion_vectors_added"] > 0


def test_time_travel_reads_gold_as_of_before_a_load(report) -> None:  # type: ignore[no-untyped-def]
    """After the incremental run, the states read `version as of` their last version of
    batch 0 (docs/operations.md, "Gold as of an earlier version") hold batch 0's gold; read
    now, they do not."""
    assert report["batch1"]["as_of_batch0"] == []
    assert report["batch1"]["latest_against_batch0"], "batch 1 changed nothing to go back from"


def test_change_data_feed_lists_what_the_batch_changed(report) -> None:  # type: ignore[no-untyped-def]
    """With var cdc_gold_change_data_feed, a first build and a rebuild create the states with
    Delta's change data feed on, and an incremental run switches it on for a state built
    without it (the scenario switched it off after batch 0). customers' feed
    over batch 1's MERGEs names exactly the keys whose stored row changed (time travel), which
    are every key batch 1 inserted, updated or deleted, plus no more than the keys its
    incremental snapshot read; the replay changes no row."""
    for model in CURRENT_STATE_MODELS:
        assert report["state"][model]["change_data_feed"] == "true", model
        assert report["batch1"]["change_data_feed"][model] == "true", model
        assert report["full_refresh"]["state"][model]["change_data_feed"] == "true", model
    feed = report["feed"]
    keys, changed = set(feed["feed"]), set(feed["changed_by_batch"])
    assert changed and keys == set(feed["stored_rows_changed"])
    assert changed <= keys <= changed | set(feed["read_by_batch"])
    assert report["replay"]["messages_read_again"] > 0
    assert report["replay"]["rows_changed"] == 0


def test_optimize_and_vacuum_operations(report) -> None:  # type: ignore[no-untyped-def]
    """`dbt run-operation cdc_optimize_gold` compacts the small files the runs' MERGEs left;
    `cdc_vacuum_gold` runs with its 7-day default, and refuses a shorter retention as Delta's
    check does. Gold still equals the oracle (test above, step `maintenance`)."""
    maintenance = report["maintenance"]
    for model in STATE_MODELS:
        assert maintenance["files_after"][model] <= maintenance["files_before"][model], model
    assert sum(maintenance["optimize_removed_files"].values()) > 0, maintenance
    assert maintenance["short_retention_refused"]
    assert "retention" in maintenance["refusal"].lower(), maintenance["refusal"]
