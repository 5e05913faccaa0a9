"""The Delta Lake scenario of tests/e2e/test_delta_gold.py, run in processes of their own.

Delta's catalog is a static setting of a Spark session, and the pytest workers hold one on the
`local` target, so this runs on sessions of the `delta` target (which CDC_GOLD_FILE_FORMAT=delta
chooses, as it chooses the gold models' format) in new processes:
`python -m tests.e2e.delta_gold_scenario <work folder> first|resume`.

`first`: batch 0 (a first `dbt run`, some of its changes withheld) and its checks, then batch
1's files (the batch, the withheld changes arriving late, a fifth of batch 0 replayed; Delta's
change data feed switched on by its var) and batch 1's build, which the test kills inside the
customers MERGE (it prints `DELTA_WATCH <the state's folder>` first). The test then reruns
the build with the `dbt` command and starts `resume` while it runs: `resume` waits for the
warehouse, checks batch 1's gold, reads the same files again (a replay: nothing changes), runs
the maintenance operations `cdc_optimize_gold` and `cdc_vacuum_gold`, then `--full-refresh`.
Gold is compared with the simulator's oracle after each step. `resume` prints one line,
`DELTA_REPORT <json>`, which the test asserts on.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from cdc_tools.dbt_invoke import run_dbt
from cdc_tools.local_spark import get_local_spark
from workbench.bench.budget import result_node_kinds
from workbench.oracle_check import COMPARED_MODELS, GoldReader, compare_database
from workbench.oracle_check import expected_history as history_of
from workbench.simulator import TABLES, SimConfig, SimResult, simulate, write_batch
from workbench.simulator.debezium import Message

# Every rule of gold occurs (asserted by the test on `events`): inserts, updates, deletes,
# key changes (pk_change_probability), truncates of order_lines (one forced in batch 0,
# truncate_probability in batch 1), the initial snapshot and an incremental one in batch 1.
CONFIG = SimConfig(
    seed=61,
    flavour="sqlserver",
    database="DELTA_MSS",
    server="deltamss",
    schemas_enable=True,
    batches=2,
    transactions=60,
    truncate_probability=0.08,
    pk_change_probability=0.25,
    incremental_snapshot_batches=(1,),
)
SELECT = (*COMPARED_MODELS, "+customer_history")
CURRENT_STATE_MODELS = ("customers", "orders", "order_lines", "captured_rows")
STATE_MODELS = (*CURRENT_STATE_MODELS, "customer_history")
# Every invocation's vars (the same each time: dbt parses again when they change): the
# change data feed on; cdc_history's incremental runs append their batch (a large compaction
# ratio: resolved when read) instead of resolving everything again.
VARS = {"cdc_gold_change_data_feed": True, "cdc_compaction_ratio": 100}
LATE = 8  # changes of batch 0 withheld until batch 1


def _payload(message: Message) -> dict[str, object] | None:
    if message.value is None:
        return None
    value = json.loads(message.value)
    value = value.get("payload", value) if isinstance(value, dict) else value
    return value if isinstance(value, dict) and value.get("op") else None


def _table(message: Message) -> str:
    return message.topic.rsplit(".", 1)[-1].lower()


def _late_changes(batch: Sequence[Message]) -> list[Message]:
    """Changes of batch 0 (inserts, updates, deletes of customers and orders) whose key has a
    later change in the batch: withheld, the batch's final state is the same; delivered with
    batch 1 they are late, older than what gold holds."""
    later: set[tuple[str, str | None]] = set()
    picked: list[Message] = []
    for message in reversed(batch):
        payload = _payload(message)
        if payload is None:
            continue
        identity = (message.topic, message.key)
        table = _table(message)
        if payload["op"] in ("c", "u", "d") and table in ("customers", "orders"):
            if identity in later:
                picked.append(message)
        if payload["op"] != "t":
            later.add(identity)
    random.Random(CONFIG.seed).shuffle(picked)
    return picked[:LATE]


def _events(result: SimResult, batch: int) -> dict[str, int]:
    """What the source did in one batch: changes by table and op, key changes, snapshots."""
    counts: dict[str, int] = {}
    for transaction in result.transactions[batch]:
        for change in transaction.changes:
            name = f"{change.table}.{change.op}"
            counts[name] = counts.get(name, 0) + 1
            if change.same_position:
                counts["key_changes"] = counts.get("key_changes", 0) + 1
        if transaction.incremental:
            counts["incremental_snapshot_chunks"] = counts.get("incremental_snapshot_chunks", 0) + 1
    return counts


def _keys(result: SimResult, batch: int, table: str, ops: str) -> set[int]:
    """The keys of `table` the source changed in `batch` with one of `ops`."""
    key = TABLES[table].key[0]
    return {
        int(str((change.after or change.before or {})[key]))
        for transaction in result.transactions[batch]
        for change in transaction.changes
        if change.table == table and change.op in ops
    }


class Scenario:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.spark = get_local_spark()
        self.schema = os.environ["CDC_SCHEMA"]
        self.gold = f"{self.schema}_gold"
        self.landing = Path(os.environ["CDC_LANDING_DIR"]) / CONFIG.database
        self.target = work / "target"
        self.result = simulate(CONFIG)
        self.report: dict[str, object] = {}

    def dbt(self, *args: str, expect_success: bool = True):  # type: ignore[no-untyped-def]
        return run_dbt(args, vars=VARS, target_path=self.target, expect_success=expect_success)

    def state(self, model: str) -> str:
        return f"{self.gold}.{model}__cdc_state"

    def compare(self, batch: int) -> list[str]:
        outcome = compare_database(
            self.spark,
            self.gold,
            CONFIG.database,
            self.result.expected[batch],
            result=self.result,
            batch=batch,
            reader=GoldReader(self.spark),
        )
        return outcome.differences + self.history_differences(batch)

    def history_differences(self, batch: int) -> list[str]:
        """customer_history against the source's versions (only once every change of the
        batches so far is delivered: the withheld ones belong to batch 0's versions)."""
        if batch < 1:
            return []
        columns = TABLES["customers"].column_names
        rows = self.spark.sql(
            f"select {', '.join(columns)}, is_current, valid_from, valid_to "
            f"from {self.gold}.customer_history order by id, _cdc_valid_from_position"
        ).collect()
        actual: dict[tuple[object, ...], list[dict[str, object]]] = {}
        for row in rows:
            actual.setdefault((row["id"],), []).append(row.asDict())
        wanted = history_of(self.result, "customers")
        current = self.result.expected[batch]["customers"]
        differences = []
        if actual.keys() != wanted.keys():
            differences.append(f"customer_history keys: {sorted(actual.keys() ^ wanted.keys())}")
        for key in sorted(actual.keys() & wanted.keys()):
            got = actual[key]
            if [{c: v[c] for c in columns} for v in got] != [
                {c: v.get(c) for c in columns} for v in wanted[key]
            ]:
                differences.append(f"customer_history {key}: versions differ")
            elif [v["is_current"] for v in got] != [False] * (len(got) - 1) + [key in current]:
                differences.append(f"customer_history {key}: is_current")
            elif any(a["valid_to"] != b["valid_from"] for a, b in zip(got, got[1:], strict=False)):
                differences.append(f"customer_history {key}: validity periods")
        return differences[:20]

    def history(self, model: str) -> list[dict[str, object]]:
        rows = self.spark.sql(f"describe history {self.state(model)}").collect()
        return sorted(
            (
                {
                    "version": int(row["version"]),
                    "operation": str(row["operation"]),
                    "metrics": dict(row["operationMetrics"] or {}),
                }
                for row in rows
            ),
            key=lambda entry: int(entry["version"]),  # type: ignore[call-overload]
        )

    def latest_version(self, model: str) -> int:
        return int(self.history(model)[-1]["version"])  # type: ignore[call-overload]

    def detail(self, model: str) -> dict[str, object]:
        row = self.spark.sql(f"describe detail {self.state(model)}").first()
        location = str(row["location"]).removeprefix("file:")
        return {
            "format": row["format"],
            "delta_log": (Path(location) / "_delta_log").is_dir(),
            "files": int(row["numFiles"] or 0),
            "change_data_feed": dict(row["properties"] or {}).get("delta.enableChangeDataFeed"),
            "deletion_vectors": dict(row["properties"] or {}).get("delta.enableDeletionVectors"),
        }

    def state_rows(self, model: str, version: int | None = None) -> list[dict[str, object]]:
        """Current rows of a Delta state, as docs/operations.md reads gold as of a version."""
        as_of = "" if version is None else f" version as of {version}"
        return [
            row.asDict()
            for row in self.spark.sql(
                f"select * from {self.state(model)}{as_of} "
                "where cdc_bucket >= 0 and not _cdc_is_deleted"
            ).collect()
        ]

    def as_of_differences(self, version: Mapping[str, int], batch: int) -> list[str]:
        """The live rows of each state as of `version[model]` against the oracle after
        `batch` (the contract columns of the simulated tables)."""
        differences = []
        for table in ("customers", "orders", "order_lines"):
            columns = TABLES[table].column_names
            got = {
                tuple(row[k] for k in TABLES[table].key): {c: row[c] for c in columns}
                for row in self.state_rows(table, version.get(table))
                if str(row["_cdc_source_db"]).lower() == CONFIG.database.lower()
            }
            wanted = {
                key: {c: row.get(c) for c in columns}
                for key, row in self.result.expected[batch][table].items()
            }
            if got != wanted:
                keys = sorted(
                    (k for k in got.keys() | wanted.keys() if got.get(k) != wanted.get(k)),
                    key=repr,
                )
                differences.append(f"{table}: {len(keys)} keys differ, e.g. {keys[:5]}")
        return differences

    def feed(self, model: str, start: int) -> list[dict[str, object]]:
        """The change data feed of a state from version `start` on."""
        return [
            row.asDict()
            for row in self.spark.sql(
                f"select * from table_changes('{self.state(model)}', {start})"
            ).collect()
        ]

    # ------------------------------------------------------------------ the steps
    def plan(self) -> tuple[list[Message], list[Message]]:
        """Batch 0 less its late changes, and what batch 1 lands: the batch, the late
        changes and a replay of part of batch 0 (seeded); the report records them."""
        first, second = self.result.batches
        late = _late_changes(first)
        late_ids = {id(m) for m in late}
        replayed = random.Random(1).sample([m for m in first if id(m) not in late_ids], 40)
        self.report["events"] = {"0": _events(self.result, 0), "1": _events(self.result, 1)}
        self.report["late"] = [(_table(m), (_payload(m) or {}).get("op")) for m in late]
        self.report["replayed"] = len(replayed)
        return [m for m in first if id(m) not in late_ids], [*second, *late, *replayed]

    def first(self) -> None:
        """Process 1: batch 0 and its checks, batch 1's files, then batch 1's build, which
        the test kills inside the customers MERGE. What it saw goes to `progress.json`."""
        batch0, batch1 = self.plan()
        written = write_batch(
            batch0, self.landing, 0, "kcat", shuffle=True, duplicate_fraction=0.1, seed=CONFIG.seed
        )
        self.dbt("run", *SELECT)
        self.report["batch0"] = {"differences": self.compare(0)}
        self.report["state"] = {m: self.detail(m) for m in STATE_MODELS}
        # a state built without the feed, as before the var was set: the next run turns it on
        for model in CURRENT_STATE_MODELS:
            self.spark.sql(
                f"alter table {self.state(model)} "
                "set tblproperties ('delta.enableChangeDataFeed' = 'false')"
            )
        after_0 = {m: self.latest_version(m) for m in STATE_MODELS}
        written += write_batch(
            batch1, self.landing, 1, "kcat", shuffle=True, duplicate_fraction=0.1, seed=CONFIG.seed
        )
        progress = {"report": self.report, "after_0": after_0, "written": [str(p) for p in written]}
        (self.work / "progress.json").write_text(json.dumps(progress, default=str))
        location = str(
            self.spark.sql(f"describe detail {self.state('customers')}").first()["location"]
        ).removeprefix("file:")
        print(f"DELTA_WATCH {location}", flush=True)
        self.dbt("run", *SELECT)
        print("DELTA_NOT_KILLED", flush=True)

    def resume(self) -> dict[str, object]:
        """Process 2, started while a `dbt run` (the test's, as a user reruns a killed
        build) holds the warehouse: it waits for it, then checks batch 1's gold and goes on
        with the replay, the maintenance and the full refresh."""
        progress = json.loads((self.work / "progress.json").read_text())
        self.report.update(progress["report"])  # the events, late and replayed changes too
        after_0: dict[str, int] = progress["after_0"]
        written = [Path(p) for p in progress["written"]]
        # each state's commits since batch 0: the killed run's and the rerun's
        commits = {
            m: [e for e in self.history(m) if int(e["version"]) > after_0[m]]  # type: ignore[call-overload]
            for m in STATE_MODELS
        }
        after_1 = {m: int(commits[m][-1]["version"]) for m in STATE_MODELS}  # type: ignore[call-overload]
        self.report["batch1"] = {
            "differences": self.compare(1),
            "operations": {m: [e["operation"] for e in commits[m]] for m in STATE_MODELS},
            "deletion_vectors_added": sum(
                int(str(e["metrics"].get("numTargetDeletionVectorsAdded", 0)))  # type: ignore[union-attr]
                for e in commits["customers"]
                if e["operation"] == "MERGE"
            ),
            "customers_merges": sum(e["operation"] == "MERGE" for e in commits["customers"]),
            "change_data_feed": {m: self.detail(m)["change_data_feed"] for m in STATE_MODELS},
            # time travel: each state as of its last version of batch 0 is batch 0's gold
            "as_of_batch0": self.as_of_differences(after_0, 0),
            "latest_against_batch0": self.as_of_differences({}, 0),
        }
        self.report["feed"] = self.feed_check(
            min(int(e["version"]) for e in commits["customers"] if e["operation"] == "MERGE"),  # type: ignore[call-overload]
            after_0["customers"],
        )

        # the same files read again (rewritten in place: a replay); nothing changes
        for path in written:
            stat = path.stat()
            path.write_bytes(path.read_bytes())
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**10))
        bronze = f"{self.schema}_bronze.bronze_cdc_messages"
        [before] = self.spark.sql(f"select count(*) as n from {bronze}").collect()
        replayed = self.dbt("run", *SELECT)
        [after] = self.spark.sql(f"select count(*) as n from {bronze}").collect()
        changed = [
            row
            for model in CURRENT_STATE_MODELS
            if self.latest_version(model) > after_1[model]
            for row in self.feed(model, after_1[model] + 1)
            if row["_change_type"] != "update_preimage"
        ]
        self.report["replay"] = {
            "differences": self.compare(1),
            "messages_read_again": int(after["n"]) - int(before["n"]),
            "rows_changed": len(changed),
            # the statements each node sent (workbench.bench.budget): gold's MERGE path
            "statements": replayed.statements.counts(),
            "kinds": result_node_kinds(replayed.result.results),
        }

        # maintenance: OPTIMIZE, VACUUM (Delta's retention check kept), gold unchanged
        self.maintenance()

        # --full-refresh: rebuilt from the change log
        self.dbt("run", *SELECT, "--full-refresh")
        self.report["full_refresh"] = {
            "differences": self.compare(1),
            "state": {m: self.detail(m) for m in STATE_MODELS},
            "first_operation": {m: self.history(m)[0]["operation"] for m in STATE_MODELS},
        }
        return self.report

    def feed_check(self, start: int, after_0: int) -> dict[str, object]:
        """customers' change data feed from `start` (batch 1's first MERGE) on: its keys
        against the keys whose stored row changed since `after_0` (time travel) and the keys
        the batch changed."""
        mine = CONFIG.database.lower()
        feed = {
            int(str(row["id"]))
            for row in self.feed("customers", start)
            if row["_change_type"] != "update_preimage"
            and int(row["cdc_bucket"]) >= 0
            and str(row["_cdc_source_db"]).lower() == mine
        }
        columns = None

        def stored(version: int | None) -> dict[int, tuple[object, ...]]:
            nonlocal columns
            as_of = "" if version is None else f" version as of {version}"
            rows = self.spark.sql(
                f"select * from {self.state('customers')}{as_of} where cdc_bucket >= 0"
            ).collect()
            columns = columns or sorted(rows[0].asDict())
            return {
                int(str(row["id"])): tuple(str(row[c]) for c in columns)
                for row in rows
                if str(row["_cdc_source_db"]).lower() == mine
            }

        before, now = stored(after_0), stored(None)
        return {
            "feed": sorted(feed),
            "stored_rows_changed": sorted(
                k for k in before.keys() | now.keys() if before.get(k) != now.get(k)
            ),
            "changed_by_batch": sorted(_keys(self.result, 1, "customers", "cud")),
            "read_by_batch": sorted(_keys(self.result, 1, "customers", "r")),
        }

    def maintenance(self) -> None:
        files = {m: self.detail(m)["files"] for m in STATE_MODELS}
        versions = {m: self.latest_version(m) for m in STATE_MODELS}
        self.dbt("run-operation", "cdc_optimize_gold")
        optimized = {
            m: sum(
                int(str(e["metrics"].get("numRemovedFiles", 0)))  # type: ignore[union-attr]
                for e in self.history(m)
                if int(e["version"]) > versions[m] and e["operation"] == "OPTIMIZE"  # type: ignore[call-overload]
            )
            for m in STATE_MODELS
        }
        self.dbt("run-operation", "cdc_vacuum_gold")
        refused = self.dbt(
            "run-operation", "cdc_vacuum_gold", "--args", "{retain_hours: 0}", expect_success=False
        )
        self.report["maintenance"] = {
            "files_before": files,
            "files_after": {m: self.detail(m)["files"] for m in STATE_MODELS},
            "optimize_removed_files": optimized,
            "short_retention_refused": not refused.success,
            # dbt reports an operation's error in its log, not in the invocation's result
            "refusal": self.last_operation_error(),
            "differences": self.compare(1),
        }

    def last_operation_error(self) -> str:
        """The last "Encountered an error while running operation" line of dbt's log."""
        marker = "Encountered an error while running operation:"
        lines = (self.target / "logs" / "dbt.log").read_text(errors="replace").splitlines()
        errors = [line.split(marker, 1)[1] for line in lines if marker in line]
        return errors[-1].strip() if errors else ""


def main() -> int:
    scenario = Scenario(Path(sys.argv[1]))
    if sys.argv[2] == "first":
        scenario.first()
    else:
        print("DELTA_REPORT " + json.dumps(scenario.resume(), default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
