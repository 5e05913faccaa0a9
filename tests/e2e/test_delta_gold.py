"""Gold and history on Delta Lake, executed: every rule of gold against the oracle.

Builds of their own, in processes of their own: Delta's catalog is a static setting of a Spark
session and this worker's session is on the `local` target. The processes
(tests/e2e/delta_gold_scenario.py) run with `CDC_GOLD_FILE_FORMAT=delta` alone: every gold
model on `file_format: delta`, and the profile's `delta` target, which the format chooses. The
first builds batch 0 and is SIGKILLed inside batch 1's customers MERGE; the `dbt` command
reruns batch 1's build, and a second process started meanwhile waits for the warehouse, then
replays the same files, runs the maintenance operations and rebuilds with `--full-refresh`,
comparing gold and `customer_history` with the simulator's oracle after each step; it prints
what it saw, and the tests below assert on it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cdc_tools.local_spark import REPO_ROOT
from tests.conftest import process_env, wait_until_it_holds_the_warehouse
from tests.e2e.delta_gold_scenario import SELECT, VARS
from workbench.bench.budget import overruns

pytestmark = pytest.mark.spark

STATE_MODELS = ("customers", "orders", "order_lines", "captured_rows", "customer_history")
CURRENT_STATE_MODELS = STATE_MODELS[:-1]


def _jars_dir() -> Path:
    return Path(os.environ.get("CDC_SPARK_JARS_DIR") or REPO_ROOT / "jars")


def _files(state: Path) -> set[str]:
    """The files of a Delta table's folder but its log: data, deletion vectors, change data."""
    return {
        str(path.relative_to(state))
        for path in state.rglob("*")
        if path.is_file() and "_delta_log" not in path.parts and not path.name.endswith(".crc")
    }


def _log(state: Path) -> list[dict]:  # type: ignore[type-arg]
    """Every action of the table's commits, in version order (each json line of the log)."""
    return [
        json.loads(line)
        for path in sorted((state / "_delta_log").glob("*.json"))
        for line in path.read_text().splitlines()
        if line.strip()
    ]


def _kill_in_the_merge(process: subprocess.Popen[str], log: Path) -> dict[str, object]:
    """Reads process 1's output into `log` until it names the customers state's folder, then
    watches that folder and SIGKILLs the process (its JVM too: its own process group) as
    soon as a file appears in it: a MERGE writes its data files, deletion vectors and change
    data there before it commits. Returns what the folder held then."""
    watched: list[Path] = []
    named = threading.Event()

    def drain() -> None:
        assert process.stdout is not None
        with log.open("w") as out:
            for line in process.stdout:
                out.write(line)
                out.flush()
                if line.startswith("DELTA_WATCH "):
                    watched.append(Path(line.removeprefix("DELTA_WATCH ").strip()))
                    named.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    while not named.wait(1.0):
        assert process.poll() is None, log.read_text()[-6000:]
    state = watched[0]
    before, commits = _files(state), len(_log(state))
    new: set[str] = set()
    while not new and process.poll() is None:
        time.sleep(0.05)
        new = _files(state) - before
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=120)
    reader.join(timeout=30)
    assert process.returncode == -signal.SIGKILL, "not killed:\n" + log.read_text()[-6000:]
    actions = _log(state)
    added = {a["add"]["path"] for a in actions if "add" in a}
    return {
        "new_files": sorted(new),
        "files_not_committed": sorted(_files(state) - before - added),
        "operations_since": [
            a["commitInfo"]["operation"] for a in actions[commits:] if "commitInfo" in a
        ],
    }


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[type-arg]
    """Process 1 builds batch 0 and is killed inside batch 1's customers MERGE; the `dbt`
    command reruns the build (as a user would) and process 2 starts while it runs, waits
    for the warehouse, then checks and goes on (tests/e2e/delta_gold_scenario.py)."""
    jars = _jars_dir()
    if not list(jars.glob("delta-spark_*.jar")) or not list(jars.glob("delta-storage-*.jar")):
        pytest.fail(f"Delta Lake's jars are not in {jars}: run `make setup` (it fetches them)")
    work = tmp_path_factory.mktemp("delta_gold")
    spark_home = work / "spark"
    env = process_env(
        spark_home,
        "t_delta",
        work / "landing",
        CDC_GOLD_FILE_FORMAT="delta",
        CDC_SPARK_JARS_DIR=str(jars),
        PYTHONUNBUFFERED="1",
    )
    env.pop("DBT_TARGET", None)  # the format chooses the target (profiles/profiles.yml)
    env.pop("CDC_WAREHOUSE_LOCK_TIMEOUT", None)
    scenario = [sys.executable, "-m", "tests.e2e.delta_gold_scenario", str(work)]
    first = subprocess.Popen(
        [*scenario, "first"],
        env=env,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        killed = _kill_in_the_merge(first, work / "first.log")
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)

    # the rerun, as a user types it, and process 2 started once it holds the warehouse
    dbt = str(Path(sys.executable).with_name("dbt"))
    rerun_argv = [dbt, "run", *SELECT, "--vars", json.dumps(VARS)]
    rerun_argv += ["--target-path", str(work / "rerun"), "--log-path", str(work / "rerun")]
    with (work / "rerun.log").open("wb") as out:
        rerun = subprocess.Popen(rerun_argv, env=env, cwd=REPO_ROOT, stdout=out, stderr=out)
    wait_until_it_holds_the_warehouse(spark_home, rerun, work / "rerun.log", 120)
    second = subprocess.Popen(
        [*scenario, "resume"],
        env=env,
        cwd=REPO_ROOT,
        stdout=(work / "resume.out").open("wb"),
        stderr=(work / "resume.err").open("wb"),
    )
    try:
        codes = [rerun.wait(timeout=900), second.wait(timeout=1500)]
    finally:
        for process in (rerun, second):
            if process.poll() is None:
                process.kill()
    text = (work / "resume.out").read_text(errors="replace")
    lines = [line for line in text.splitlines() if line.startswith("DELTA_REPORT ")]
    assert codes == [0, 0] and lines, (
        (work / "rerun.log").read_text(errors="replace")[-3000:]
        + text[-3000:]
        + (work / "resume.err").read_text(errors="replace")[-3000:]
    )
    waiting = [
        line
        for line in (work / "resume.err").read_text(errors="replace").splitlines()
        if "is in use by" in line
    ]
    outcome = json.loads(lines[-1].removeprefix("DELTA_REPORT "))
    outcome["killed"] = killed
    outcome["waited_for"] = [f"pid {rerun.pid} (dbt run" in line for line in waiting]
    return outcome


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


def test_a_build_killed_inside_a_merge_reruns_to_the_same_gold(report) -> None:  # type: ignore[no-untyped-def]
    """Process 1 was SIGKILLed (with its JVM) once the customers MERGE of batch 1's build had
    written files into the state's folder and before it committed them: those files are in
    no commit of the log, and no MERGE was committed since. The rerun (the `dbt` command)
    MERGEd batch 1 and gold equals the source (step `batch1` below: the same comparison as
    an uninterrupted run, and the full refresh's rebuild from the change log equals it too)."""
    killed = report["killed"]
    assert killed["new_files"], killed
    assert killed["files_not_committed"], killed
    assert "MERGE" not in killed["operations_since"], killed
    assert report["batch1"]["customers_merges"] >= 1
    assert report["batch1"]["differences"] == []


def test_a_second_build_on_the_warehouse_waits_for_the_first(report) -> None:  # type: ignore[no-untyped-def]
    """Process 2 was started while the rerun held the Delta warehouse: it said once that the
    warehouse is in use by that `dbt run` and waited, then built (the replay) on the state
    the rerun committed; both succeeded, and gold equals the source after each."""
    assert report["waited_for"] == [True]
    assert report["replay"]["differences"] == []


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


def test_the_merge_path_keeps_its_statement_budget(report) -> None:  # type: ignore[no-untyped-def]
    """The replay's incremental run on the MERGE path: every node within the statement budget
    of its kind (workbench.bench.budget, decision 0020), gold on Delta included."""
    replay = report["replay"]
    kinds = replay["kinds"]
    gold = {node: n for node, n in replay["statements"].items() if kinds.get(node) == "gold delta"}
    assert len(gold) == len(CURRENT_STATE_MODELS), replay["statements"]
    assert overruns(replay["statements"], kinds, "incremental") == []


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
