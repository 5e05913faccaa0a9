"""Where a dbt run's time goes inside Spark, from the Spark event log of that run.

Enable the log for the local profile with ``CDC_SPARK_EVENT_LOG=true`` (and
``CDC_SPARK_EVENT_LOG_DIR``, an existing folder, default ``/tmp/spark-events``), or run
``make bench BENCH_ARGS=--event-logs``. Then::

    python -m workbench.spark_profile <event log file> --run-results target/run_results.json

lists, per dbt node, the Spark SQL statements it ran (root executions, attributed by time to
the node whose execution phase contains their start, so with ``threads: 1``), their time,
the task time and CPU time of their tasks, JVM GC, spill, bytes read and written and
shuffled; ``--plans DIR`` writes the physical plan (Spark's ``EXPLAIN FORMATTED``) of the
slowest statements. A node's time beyond its Spark statements is dbt's own work (compiling,
metadata queries, fetching results).

The log must be uncompressed and not rolled (the profile sets
``spark.eventLog.compress=false`` and ``spark.eventLog.rolling.enabled=false``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from workbench.tables import markdown_table

_SQL_START = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"
_SQL_END = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd"
UNATTRIBUTED = "(outside any node)"


class EventLogError(ValueError):
    """The event log cannot be read."""


@dataclass
class Execution:
    """One Spark SQL execution and the metrics of the tasks its jobs ran."""

    id: int
    root_id: int
    start_ms: int
    end_ms: int | None = None
    plan: str = ""
    tasks: int = 0
    task_ms: int = 0
    cpu_ns: int = 0
    gc_ms: int = 0
    spill_bytes: int = 0
    input_bytes: int = 0
    output_bytes: int = 0
    shuffle_read_bytes: int = 0
    shuffle_write_bytes: int = 0

    @property
    def seconds(self) -> float:
        return 0.0 if self.end_ms is None else (self.end_ms - self.start_ms) / 1000

    @property
    def operation(self) -> str:
        """The plan's first operator, e.g. ``Execute InsertIntoHadoopFsRelationCommand``."""
        lines = [line for line in self.plan.splitlines() if line.strip()]
        head = lines[1] if len(lines) > 1 and lines[0].startswith("==") else ""
        return head.split(" (")[0].strip("+-: ") or "?"

    def add_task(self, metrics: Mapping[str, Any]) -> None:
        self.tasks += 1
        self.task_ms += int(metrics.get("Executor Run Time", 0))
        self.cpu_ns += int(metrics.get("Executor CPU Time", 0))
        self.gc_ms += int(metrics.get("JVM GC Time", 0))
        self.spill_bytes += int(metrics.get("Memory Bytes Spilled", 0))
        self.spill_bytes += int(metrics.get("Disk Bytes Spilled", 0))
        self.input_bytes += int((metrics.get("Input Metrics") or {}).get("Bytes Read", 0))
        self.output_bytes += int((metrics.get("Output Metrics") or {}).get("Bytes Written", 0))
        shuffle_read = metrics.get("Shuffle Read Metrics") or {}
        self.shuffle_read_bytes += int(shuffle_read.get("Remote Bytes Read", 0))
        self.shuffle_read_bytes += int(shuffle_read.get("Local Bytes Read", 0))
        shuffle_write = metrics.get("Shuffle Write Metrics") or {}
        self.shuffle_write_bytes += int(shuffle_write.get("Shuffle Bytes Written", 0))


# the task metrics of an Execution: its fields that start at 0
_METRICS = tuple(f.name for f in fields(Execution) if f.default == 0)


def event_log_files(path: Path) -> list[Path]:
    """The application logs at ``path`` (a file, or a folder of them), oldest first."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise EventLogError(f"no event log at {path}")
    files = [p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")]
    if not files:
        raise EventLogError(f"{path} holds no event log")
    return sorted(files, key=lambda p: p.stat().st_mtime)


def read_events(path: Path) -> Iterator[dict[str, Any]]:
    """The events of one uncompressed, unrolled event log file."""
    if path.is_dir() or path.suffix in {".zstd", ".lz4", ".snappy", ".lzf"}:
        raise EventLogError(
            f"{path} is a rolled or compressed event log; set spark.eventLog.compress=false "
            "and spark.eventLog.rolling.enabled=false (the local profile does)"
        )
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as error:
                if line.endswith("\n"):
                    raise EventLogError(f"{path}:{number}: not JSON ({error})") from error
                return  # the last line of a log still being written


def parse_executions(events: Iterable[Mapping[str, Any]]) -> list[Execution]:
    """Spark SQL executions with the task metrics of their jobs, in start order."""
    executions: dict[int, Execution] = {}
    stage_execution: dict[int, int] = {}
    for event in events:
        kind = event.get("Event")
        if kind == _SQL_START:
            execution_id = int(event["executionId"])
            executions[execution_id] = Execution(
                id=execution_id,
                root_id=int(event.get("rootExecutionId", execution_id)),
                start_ms=int(event["time"]),
                plan=str(event.get("physicalPlanDescription", "")),
            )
        elif kind == _SQL_END:
            execution = executions.get(int(event["executionId"]))
            if execution is not None:
                execution.end_ms = int(event["time"])
        elif kind == "SparkListenerJobStart":
            execution_id = (event.get("Properties") or {}).get("spark.sql.execution.id")
            if execution_id is not None:
                for stage in event.get("Stage IDs", []):
                    stage_execution[int(stage)] = int(execution_id)
        elif kind == "SparkListenerTaskEnd":
            execution_id = stage_execution.get(int(event.get("Stage ID", -1)))
            if execution_id is not None and execution_id in executions:
                executions[execution_id].add_task(event.get("Task Metrics") or {})
    return sorted(executions.values(), key=lambda e: (e.start_ms, e.id))


def roots(executions: Sequence[Execution]) -> list[Execution]:
    """Root executions, each with the task metrics of its nested ones added."""
    by_id = {e.id: e for e in executions}
    merged = {
        e.id: Execution(e.id, e.root_id, e.start_ms, e.end_ms, e.plan)
        for e in executions
        if e.root_id == e.id or e.root_id not in by_id
    }
    for execution in executions:
        root = merged.get(execution.root_id, merged.get(execution.id))
        if root is None:
            continue
        for name in _METRICS:
            setattr(root, name, getattr(root, name) + getattr(execution, name))
    return sorted(merged.values(), key=lambda e: (e.start_ms, e.id))


@dataclass(frozen=True)
class NodeWindow:
    name: str
    start_ms: int
    end_ms: int
    seconds: float


def _epoch_ms(text: str) -> int:
    stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.timezone.utc)
    return int(stamp.timestamp() * 1000)


def node_windows(run_results: Mapping[str, Any]) -> list[NodeWindow]:
    """Each node's window of run_results.json (compile start to execute end)."""
    windows = []
    for result in run_results.get("results", []):
        timing = result.get("timing") or []
        if not timing:
            continue
        kind, _, rest = str(result["unique_id"]).partition(".")
        name = f"{kind} {rest.split('.', 1)[-1]}"
        windows.append(
            NodeWindow(
                name,
                _epoch_ms(timing[0]["started_at"]),
                _epoch_ms(timing[-1]["completed_at"]),
                float(result.get("execution_time") or 0.0),
            )
        )
    return sorted(windows, key=lambda w: w.start_ms)


@dataclass
class NodeProfile:
    name: str
    node_seconds: float = 0.0
    executions: list[Execution] = field(default_factory=list)

    def total(self, name: str) -> int:
        return sum(getattr(e, name) for e in self.executions)

    @property
    def spark_seconds(self) -> float:
        return sum(e.seconds for e in self.executions)

    def row(self) -> dict[str, Any]:
        return {
            "node": self.name,
            "node_s": round(self.node_seconds, 2),
            "statements": len(self.executions),
            "spark_s": round(self.spark_seconds, 2),
            "task_s": round(self.total("task_ms") / 1000, 2),
            "cpu_s": round(self.total("cpu_ns") / 1e9, 2),
            "gc_s": round(self.total("gc_ms") / 1000, 2),
            "spill_mb": round(self.total("spill_bytes") / 2**20, 1),
            "read_mb": round(self.total("input_bytes") / 2**20, 1),
            "written_mb": round(self.total("output_bytes") / 2**20, 1),
            "shuffled_mb": round(self.total("shuffle_write_bytes") / 2**20, 1),
        }


def attribute(executions: Sequence[Execution], windows: Sequence[NodeWindow]) -> list[NodeProfile]:
    """Root executions grouped by the node whose window holds their start, slowest first."""
    profiles = {w.name: NodeProfile(w.name, w.seconds) for w in windows}
    outside = NodeProfile(UNATTRIBUTED)
    for execution in roots(executions):
        owner = next(
            (w.name for w in windows if w.start_ms <= execution.start_ms <= w.end_ms), None
        )
        (profiles[owner] if owner else outside).executions.append(execution)
    result = list(profiles.values()) + ([outside] if outside.executions else [])
    return sorted(result, key=lambda p: -max(p.node_seconds, p.spark_seconds))


def profile(event_log: Path, run_results: Mapping[str, Any] | None = None) -> list[NodeProfile]:
    """The node profiles of the newest application log at ``event_log``."""
    executions = parse_executions(read_events(event_log_files(event_log)[-1]))
    return attribute(executions, node_windows(run_results or {}))


PROFILE_HEADERS = (
    "node",
    "node s",
    "Spark statements",
    "Spark s",
    "task s",
    "CPU s",
    "GC s",
    "spill MB",
    "read MB",
    "written MB",
    "shuffled MB",
)


def render_markdown(profiles: Sequence[NodeProfile], top: int = 15) -> str:
    rows = [list(p.row().values()) for p in profiles[:top]]
    lines = [markdown_table(PROFILE_HEADERS, rows)]
    spark = sum(p.spark_seconds for p in profiles)
    nodes = sum(p.node_seconds for p in profiles)
    lines += [
        "",
        f"{len(profiles)} nodes: {nodes:.1f} s in nodes, {spark:.1f} s in Spark statements "
        f"({sum(len(p.executions) for p in profiles)} statements).",
    ]
    return "\n".join(lines)


def write_plans(profiles: Sequence[NodeProfile], folder: Path, top: int = 10) -> list[Path]:
    """The physical plans of the ``top`` slowest statements, one file each."""
    folder.mkdir(parents=True, exist_ok=True)
    slowest = sorted(
        ((p.name, e) for p in profiles for e in p.executions), key=lambda item: -item[1].seconds
    )[:top]
    written = []
    for rank, (name, execution) in enumerate(slowest, start=1):
        slug = "".join(c if c.isalnum() else "_" for c in name)[:60]
        path = folder / f"{rank:02d}_{slug}_{execution.id}.txt"
        path.write_text(f"-- {name}: {execution.seconds:.2f} s\n{execution.plan}\n")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench.spark_profile", description=__doc__)
    parser.add_argument("event_log", type=Path, help="an event log file, or their folder")
    parser.add_argument("--run-results", type=Path, help="the run's target/run_results.json")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--plans", type=Path, help="write the slowest statements' plans here")
    args = parser.parse_args(argv)
    run_results = json.loads(args.run_results.read_text()) if args.run_results else None
    try:
        profiles = profile(args.event_log, run_results)
    except EventLogError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(render_markdown(profiles, args.top))
    if args.plans:
        for path in write_plans(profiles, args.plans, args.top):
            print(f"plan: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
