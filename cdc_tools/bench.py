"""`make bench`: how fast the pipeline turns N change events into gold, and at what memory.

One scenario (``--events N``):

1. simulate N Debezium change events (Oracle, SQL Server, Db2; with and without the schema
   wrapper; value-line and ``kcat -J`` files) into a landing folder under the results
   folder, holding back the last ``--increment-fraction`` of every source for step (b);
2. measure, each as a subprocess with its own Spark home, wall time and the peak resident
   memory of its process tree (Python + the Spark JVM, sampled from /proc):
   (a) ``dbt build`` from an empty warehouse, (b) ``dbt build`` after the held-back files
   land, (c) ``dbt build`` with no new files (the fixed cost of one invocation), (d) the
   floor under (c): ``dbt build`` of a one-model project on the same profile
   (FLOOR_PROJECT), and (e) a baseline: one hand-written PySpark job that keeps the latest
   row per key of the same files (:func:`baseline_job`);
3. print the table, the ratios against the targets and dbt's per-model times, and write them
   as ``bench.json`` and ``bench.md`` in the results folder.

``--scaling 100000,300000`` adds scenarios of other sizes (full, incremental and no-op;
their increment has the size of the main scenario's, so that the incremental row shows how
an increment's cost follows the size of what is already loaded).

Nothing here holds a Spark session while dbt runs: the embedded Derby metastore admits one
process at a time, and each measured run is a separate process, as a user's run would be.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from cdc_tools import spark_profile
from cdc_tools.local_spark import PROFILES_DIR, REPO_ROOT
from cdc_tools.spark_profile import PROFILE_HEADERS as SPARK_PROFILE_HEADERS
from cdc_tools.tables import markdown_table, text_table

DEFAULT_EVENTS = 1_000_000
DEFAULT_INCREMENT_FRACTION = 0.01
DEFAULT_RESULTS_DIR = Path("results/bench")
DEFAULT_FLAVOURS: tuple[str, ...] = ("oracle", "sqlserver", "db2")
DEFAULT_BATCH_EVENTS = 10_000
"""Messages per simulated batch, i.e. per landing file (per topic for value-line files)."""

SNAPSHOT_SHARE = 0.1
"""Share of every source's events that are its initial snapshot (op ``r``)."""
INITIAL_ROW_WEIGHTS: Mapping[str, int] = {"customers": 2, "orders": 3, "order_lines": 4}
MESSAGES_PER_TRANSACTION = 3.6
"""Measured average of the simulator's workload (1-5 changes, tombstones after deletes)."""

FULL_OVER_BASELINE_TARGET = 2.0
INCREMENTAL_SHARE_TARGET = 0.05
SAMPLE_INTERVAL_S = 0.2
BASELINE_RESULT_TAG = "BENCH_BASELINE_RESULT "
STEPS: tuple[str, ...] = ("full", "incremental", "no-op", "floor", "baseline")
# The smallest dbt build on the same profile: one table model of one row. Its time is what any
# invocation pays (Python and dbt start, parse, the Spark JVM, metastore, one write), the
# floor under the no-op run.
FLOOR_PROJECT: dict[str, str] = {
    "dbt_project.yml": (
        "name: cdc_bench_floor\nversion: '1.0'\nconfig-version: 2\nprofile: cdc_spark\n"
        "model-paths: [models]\n"
    ),
    "models/floor.sql": "{{ config(materialized='table') }}\n\nselect 1 as one\n",
}


class BenchError(RuntimeError):
    """A measured subprocess failed or the generated data is not what was planned."""


# ---------------------------------------------------------------------- planning
def split_events(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` counts that differ by at most one (larger first)."""
    if parts <= 0:
        raise ValueError("parts must be positive")
    if total < 0:
        raise ValueError("total must be >= 0")
    base, extra = divmod(total, parts)
    return [base + (1 if index < extra else 0) for index in range(parts)]


def split_weighted(total: int, weights: Mapping[str, int]) -> dict[str, int]:
    """``total`` split by integer weights; rounding leftovers go to the first names."""
    weight_sum = sum(weights.values())
    shares = {name: total * weight // weight_sum for name, weight in weights.items()}
    leftover = total - sum(shares.values())
    for name in list(shares)[:leftover]:
        shares[name] += 1
    return shares


def landing_format(flavour_index: int, wrapped: bool) -> str:
    """Alternate the two landing layouts so that each flavour and wrapper meets both."""
    return "kcat" if (flavour_index + int(wrapped)) % 2 else "value_lines"


@dataclass(frozen=True)
class SourcePlan:
    """One simulated source database and how many of its events land when."""

    index: int
    flavour: str
    wrapped: bool
    fmt: str
    events: int
    held_back: int

    @property
    def name(self) -> str:
        return f"BENCH{self.index}_{self.flavour.upper()}"

    @property
    def initial_events(self) -> int:
        return self.events - self.held_back

    @property
    def initial_rows(self) -> dict[str, int]:
        return split_weighted(round(self.events * SNAPSHOT_SHARE), INITIAL_ROW_WEIGHTS)


def plan_sources(events: int, flavours: Sequence[str], increment_events: int) -> list[SourcePlan]:
    """Split ``events`` over every flavour with and without the schema wrapper."""
    if not flavours:
        raise ValueError("at least one flavour is needed")
    if not 0 <= increment_events <= events:
        raise ValueError("the increment must be between 0 and the number of events")
    combos = [(i, flavour, wrapped) for i, flavour in enumerate(flavours) for wrapped in (0, 1)]
    totals = split_events(events, len(combos))
    held = split_events(increment_events, len(combos))
    return [
        SourcePlan(
            index=index,
            flavour=flavour,
            wrapped=bool(wrapped),
            fmt=landing_format(flavour_index, bool(wrapped)),
            events=total,
            held_back=held_back,
        )
        for index, ((flavour_index, flavour, wrapped), total, held_back) in enumerate(
            zip(combos, totals, held, strict=True)
        )
    ]


def parse_counts(text: str) -> list[int]:
    """``"100000,1_000_000"`` -> ``[100000, 1000000]``."""
    return [int(part.strip().replace("_", "")) for part in text.split(",") if part.strip()]


# -------------------------------------------------------------------- generation
@dataclass
class GenerationStats:
    events: int = 0
    held_back: int = 0
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0


def _folder_bytes(folder: Path) -> tuple[int, int]:
    files = [path for path in folder.rglob("*") if path.is_file()]
    return len(files), sum(path.stat().st_size for path in files)


def generate_source(
    plan: SourcePlan, landing: Path, increment: Path, batch_events: int
) -> tuple[int, int]:
    """Simulate one source; write its first events to ``landing`` and the rest to
    ``increment``. Returns (events written to landing, events held back)."""
    from cdc_tools.simulator import Message, SimConfig, iter_simulation

    transactions = max(1, round(batch_events / MESSAGES_PER_TRANSACTION))
    config = SimConfig(
        seed=1000 + plan.index,
        flavour=plan.flavour,
        database=plan.name,
        server=f"bench{plan.index}",
        schemas_enable=plan.wrapped,
        initial_rows=plan.initial_rows,
        transactions=transactions,
        # every transaction publishes at least one message: this many batches is enough
        batches=plan.events // transactions + 2,
    )
    produced = 0
    batch_index = 0
    held: list[Message] = []
    for batch in iter_simulation(config, with_expected=False):
        messages = batch.messages[: plan.events - produced]
        first = messages[: max(0, plan.initial_events - produced)]
        held.extend(messages[len(first) :])
        produced += len(messages)
        # at most batch_events messages a file, the initial snapshot's batch included
        batch_index = _write_files(first, landing / plan.name, batch_index, plan.fmt, batch_events)
        if produced >= plan.events:
            break
    if produced != plan.events:
        raise BenchError(f"{plan.name}: simulated {produced} events, planned {plan.events}")
    _write_files(held, increment / plan.name, batch_index, plan.fmt, batch_events)
    return produced - len(held), len(held)


def _write_files(
    messages: Sequence[Any], folder: Path, batch_index: int, fmt: str, batch_events: int
) -> int:
    """Writes ``messages`` as batches of at most ``batch_events`` (one file a batch, or one
    per topic and partition), numbered from ``batch_index``; returns the next number."""
    from cdc_tools.simulator import write_batch

    for start in range(0, len(messages), batch_events):
        write_batch(messages[start : start + batch_events], folder, batch_index, fmt)
        batch_index += 1
    return batch_index


def generate(
    plans: Sequence[SourcePlan], landing: Path, increment: Path, batch_events: int
) -> GenerationStats:
    stats = GenerationStats()
    started = time.monotonic()
    for plan in plans:
        written, held = generate_source(plan, landing, increment, batch_events)
        stats.events += written
        stats.held_back += held
    stats.seconds = time.monotonic() - started
    stats.files, stats.bytes = _folder_bytes(landing)
    return stats


def add_increment(increment: Path, landing: Path) -> int:
    """Move the held-back files into the landing folder; returns how many moved."""
    moved = 0
    for path in sorted(p for p in increment.rglob("*") if p.is_file()):
        destination = landing / path.relative_to(increment)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if destination.exists():
            raise BenchError(f"{destination} exists: the increment would overwrite a file")
        os.replace(path, destination)
        moved += 1
    return moved


# ----------------------------------------------------------------- project copy
PROJECT_PATHS: tuple[str, ...] = (
    "dbt_project.yml",
    "packages.yml",
    "dependencies.yml",
    "models",
    "macros",
    "seeds",
    "snapshots",
    "analyses",
    "tests/dbt",
    "docs/dbt",
    "dbt_packages",
)


def _git(*args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else ""


def project_info(rev: str | None) -> dict[str, Any]:
    """Which version of the dbt project was measured."""
    dirty = [
        line[3:]
        for line in _git("status", "--porcelain").splitlines()
        if line[3:].split("/")[0] in {p.split("/")[0] for p in PROJECT_PATHS}
    ]
    return {
        "source": f"git {rev}" if rev else "working tree",
        "commit": _git("rev-parse", rev or "HEAD") or None,
        "uncommitted_project_files": [] if rev else dirty,
    }


def snapshot_project(dest: Path, rev: str | None = None) -> None:
    """Copy the dbt project (working tree, or git revision ``rev``) to ``dest``, so that
    edits made to the repo while the benchmark runs do not change what it measures."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    if rev:
        archive = subprocess.run(
            ["git", "archive", "--format=tar", rev], cwd=REPO_ROOT, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
        return
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "target", "logs")
    for relative in PROJECT_PATHS:
        source = REPO_ROOT / relative
        if source.is_dir():
            shutil.copytree(source, dest / relative, ignore=ignore)
        elif source.is_file():
            (dest / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / relative)


# ---------------------------------------------------------------- /proc sampling
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class ProcStat:
    ppid: int
    cpu_ticks: int
    """utime + stime of the process itself, in clock ticks."""


def parse_stat(stat_text: str) -> ProcStat:
    """Parent pid and CPU ticks from a /proc/<pid>/stat line (the name may hold spaces)."""
    fields = stat_text[stat_text.rindex(")") + 2 :].split()
    # fields[0] is field 3 of proc(5) (state): ppid is field 4, utime 14, stime 15
    return ProcStat(ppid=int(fields[1]), cpu_ticks=int(fields[11]) + int(fields[12]))


def proc_table(proc: Path = Path("/proc")) -> dict[int, ProcStat]:
    """pid -> (parent pid, CPU ticks) of every process visible in /proc."""
    table: dict[int, ProcStat] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            table[int(entry.name)] = parse_stat((entry / "stat").read_text())
        except (OSError, ValueError, IndexError):
            continue  # the process ended while we looked
    return table


def descendants(pid: int, parents: Mapping[int, int]) -> list[int]:
    """Every process below ``pid`` in the tree ``parents`` (pid -> parent pid) describes."""
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    pending = list(children.get(pid, []))
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(children.get(current, []))
    return found


def rss_kb(pid: int, proc: Path = Path("/proc")) -> int:
    """VmRSS of one process in KiB (0 when it is gone or is a zombie)."""
    try:
        for line in (proc / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


@dataclass(frozen=True)
class TreeSample:
    rss_kb: int
    """Resident memory of the process and its descendants (shared pages count per process)."""
    cpu_ticks: dict[int, int]
    """CPU ticks so far of every process of the tree."""


def sample_tree(pid: int) -> TreeSample:
    table = proc_table()
    pids = [pid, *descendants(pid, {p: stat.ppid for p, stat in table.items()})]
    return TreeSample(
        rss_kb=sum(rss_kb(p) for p in pids),
        cpu_ticks={p: table[p].cpu_ticks for p in pids if p in table},
    )


@dataclass
class ProcessRun:
    wall_s: float
    peak_rss_mb: float
    cpu_s: float
    """CPU time of the tree (user + system), up to the last sample of each process."""
    returncode: int
    samples: int


def run_measured(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    log_path: Path,
    cwd: Path = REPO_ROOT,
    interval: float = SAMPLE_INTERVAL_S,
) -> ProcessRun:
    """Run ``argv`` to completion, sampling its process tree every ``interval`` seconds."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    peak_kb = 0
    samples = 0
    ticks: dict[int, int] = {}
    with open(log_path, "wb") as log:
        started = time.monotonic()
        process = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env), stdout=log, stderr=subprocess.STDOUT
        )
        while True:
            sample = sample_tree(process.pid)
            peak_kb = max(peak_kb, sample.rss_kb)
            for pid, cpu in sample.cpu_ticks.items():
                ticks[pid] = max(ticks.get(pid, 0), cpu)
            samples += 1
            try:
                returncode = process.wait(timeout=interval)
                break
            except subprocess.TimeoutExpired:
                continue
        wall = time.monotonic() - started
    return ProcessRun(wall, peak_kb / 1024, sum(ticks.values()) / CLOCK_TICKS, returncode, samples)


def _log_tail(path: Path, lines: int = 40) -> str:
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])


# ------------------------------------------------------------------- dbt timings
@dataclass(frozen=True)
class NodeTiming:
    unique_id: str
    status: str
    seconds: float
    compile_s: float = 0.0
    """dbt's compile phase; for this project it includes the queries macros run while
    rendering (e.g. bronze's new-file listing)."""
    execute_s: float = 0.0

    @property
    def kind(self) -> str:
        return self.unique_id.split(".", 1)[0]

    @property
    def short_name(self) -> str:
        """``model stg_cdc__messages`` (no project name, no test hash)."""
        parts = self.unique_id.split(".")
        return f"{parts[0]} {parts[2] if len(parts) > 2 else parts[-1]}"


def _timestamp(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _phase_seconds(timing: Iterable[Mapping[str, str]]) -> dict[str, float]:
    phases: dict[str, float] = {}
    for phase in timing:
        if phase.get("started_at") and phase.get("completed_at"):
            span = _timestamp(phase["completed_at"]) - _timestamp(phase["started_at"])
            phases[phase["name"]] = span.total_seconds()
    return phases


def node_timings(run_results: Mapping[str, Any]) -> list[NodeTiming]:
    """dbt's per-node execution times from ``run_results.json``, slowest first."""
    nodes = []
    for result in run_results.get("results", []):
        phases = _phase_seconds(result.get("timing") or [])
        nodes.append(
            NodeTiming(
                unique_id=str(result["unique_id"]),
                status=str(result.get("status")),
                seconds=float(result.get("execution_time") or 0.0),
                compile_s=phases.get("compile", 0.0),
                execute_s=phases.get("execute", 0.0),
            )
        )
    return sorted(nodes, key=lambda node: node.seconds, reverse=True)


def setup_seconds(run_results: Mapping[str, Any]) -> float | None:
    """From dbt's start to its first node: parse, Spark session start, relation cache."""
    started = (run_results.get("metadata") or {}).get("invocation_started_at")
    firsts = [
        phase["started_at"]
        for result in run_results.get("results", [])
        for phase in result.get("timing") or []
        if phase.get("started_at")
    ]
    if not started or not firsts:
        return None
    first = min(_timestamp(t) for t in firsts)
    return (first - _timestamp(started)).total_seconds()


def timing_summary(run_results: Mapping[str, Any], wall_s: float) -> dict[str, Any]:
    """Per-node times plus where the rest of the wall time went (start-up, parse, ...)."""
    nodes = node_timings(run_results)
    by_kind: dict[str, float] = {}
    for node in nodes:
        by_kind[node.kind] = by_kind.get(node.kind, 0.0) + node.seconds
    elapsed = float(run_results.get("elapsed_time") or 0.0)
    setup = setup_seconds(run_results)
    return {
        "dbt_elapsed_s": round(elapsed, 2),
        "outside_dbt_s": round(wall_s - elapsed, 2),
        "setup_s": None if setup is None else round(setup, 2),
        "seconds_by_kind": {kind: round(s, 2) for kind, s in by_kind.items()},
        "nodes": [
            {
                "node": n.unique_id,
                "name": n.short_name,
                "status": n.status,
                "seconds": round(n.seconds, 2),
                "compile_s": round(n.compile_s, 2),
                "execute_s": round(n.execute_s, 2),
            }
            for n in nodes
        ],
    }


# ------------------------------------------------------------------------- steps
@dataclass
class StepResult:
    step: str
    wall_s: float
    events: int
    peak_rss_mb: float
    cpu_s: float = 0.0
    load_before: float = 0.0
    """1-minute load average when the step started (the machine may be shared)."""
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def events_per_s(self) -> float | None:
        return self.events / self.wall_s if self.events and self.wall_s > 0 else None

    def row(self) -> dict[str, Any]:
        eps = self.events_per_s
        return {
            "step": self.step,
            "wall_s": round(self.wall_s, 2),
            "events": self.events,
            "events_per_s": None if eps is None else round(eps),
            "peak_rss_mb": round(self.peak_rss_mb),
            "cpu_s": round(self.cpu_s, 1),
            "load_before": round(self.load_before, 2),
        }


@dataclass(frozen=True)
class Workspace:
    """The folders of one scenario under the results folder."""

    root: Path

    @property
    def landing(self) -> Path:
        return self.root / "landing"

    @property
    def increment(self) -> Path:
        return self.root / "increment"

    @property
    def spark_home(self) -> Path:
        return self.root / "spark-home"

    @property
    def baseline_home(self) -> Path:
        return self.root / "baseline-spark-home"

    @property
    def baseline_out(self) -> Path:
        return self.root / "baseline-out"

    @property
    def floor_project(self) -> Path:
        return self.root / "floor-project"

    @property
    def floor_home(self) -> Path:
        return self.root / "floor-spark-home"

    @property
    def target(self) -> Path:
        return self.root / "target"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def project(self) -> Path:
        return self.root / "project"

    def clean_data(self) -> None:
        for folder in (
            self.landing,
            self.increment,
            self.spark_home,
            self.baseline_home,
            self.baseline_out,
            self.project,
            self.floor_project,
            self.floor_home,
        ):
            shutil.rmtree(folder, ignore_errors=True)


def spark_env(spark_home: Path, landing: Path) -> dict[str, str]:
    """The environment of a measured subprocess: its own Spark home, the landing folder."""
    env = dict(os.environ)
    env.update(
        {
            "CDC_SPARK_HOME": str(spark_home),
            "CDC_LANDING_DIR": str(landing),
            "CDC_SCHEMA": env.get("CDC_BENCH_SCHEMA", "bench"),
            "CDC_LOG4J_CONFIG": str(PROFILES_DIR / "log4j2.properties"),
            "DBT_PROFILES_DIR": str(PROFILES_DIR),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p
            ),
        }
    )
    return env


def _load1() -> float:
    return os.getloadavg()[0]


def dbt_executable() -> str:
    candidate = Path(sys.executable).parent / "dbt"
    return str(candidate) if candidate.exists() else "dbt"


def write_floor_project(dest: Path) -> None:
    """Writes FLOOR_PROJECT, the one-model dbt project of the floor step, into ``dest``."""
    shutil.rmtree(dest, ignore_errors=True)
    for name, text in FLOOR_PROJECT.items():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        (dest / name).write_text(text)


def run_dbt_step(
    step: str, events: int, ws: Workspace, *, floor: bool = False, event_logs: bool = False
) -> StepResult:
    """One measured ``dbt build`` subprocess; keeps a copy of its run_results.json.

    ``floor``: build the one-model FLOOR_PROJECT in a Spark home of its own instead.
    ``event_logs``: Spark writes an event log under ``<scenario>/event-logs/<step>``, and
    ``spark_profile_<step>.md`` (with the slowest statements' plans) is written beside it."""
    slug = step.replace("-", "")
    project, spark_home, target = ws.project, ws.spark_home, ws.target
    if floor:
        project, spark_home, target = ws.floor_project, ws.floor_home, ws.root / "floor-target"
        write_floor_project(project)
    argv = [
        dbt_executable(),
        "build",
        "--project-dir",
        str(project),
        "--profiles-dir",
        str(PROFILES_DIR),
        "--target-path",
        str(target),
        "--log-path",
        str(ws.logs / "dbt"),
    ]
    load = _load1()
    log = ws.logs / f"{slug}.log"
    what = "one table of one row" if floor else f"{events:,} new events"
    print(f"  [{step}] dbt build over {what} ...", flush=True)
    env = spark_env(spark_home, ws.landing)
    event_log_dir = ws.root / "event-logs" / slug
    if event_logs:
        event_log_dir.mkdir(parents=True, exist_ok=True)
        env.update({"CDC_SPARK_EVENT_LOG": "true", "CDC_SPARK_EVENT_LOG_DIR": str(event_log_dir)})
    run = run_measured(argv, env=env, log_path=log, cwd=project)
    if run.returncode != 0:
        raise BenchError(f"dbt build ({step}) failed, see {log}:\n{_log_tail(log)}")
    run_results_path = target / "run_results.json"
    run_results = json.loads(run_results_path.read_text())
    shutil.copy(run_results_path, ws.root / f"run_results_{slug}.json")
    result = StepResult(step, run.wall_s, events, run.peak_rss_mb, run.cpu_s, load)
    result.detail = timing_summary(run_results, run.wall_s)
    if event_logs:
        result.detail["spark_profile"] = write_spark_profile(event_log_dir, run_results, ws, slug)
    print(f"  [{step}] {run.wall_s:.1f} s, peak {run.peak_rss_mb:.0f} MB", flush=True)
    return result


def write_spark_profile(
    event_log_dir: Path, run_results: Mapping[str, Any], ws: Workspace, slug: str, top: int = 15
) -> list[dict[str, Any]]:
    """Per-node Spark figures of one step (cdc_tools.spark_profile), as rows; also written
    as ``spark_profile_<step>.md`` with the slowest statements' plans in ``plans_<step>/``."""
    try:
        profiles = spark_profile.profile(event_log_dir, run_results)
    except spark_profile.EventLogError as error:
        print(f"  [{slug}] no Spark profile: {error}", flush=True)
        return []
    (ws.root / f"spark_profile_{slug}.md").write_text(
        spark_profile.render_markdown(profiles, top) + "\n"
    )
    spark_profile.write_plans(profiles, ws.root / f"plans_{slug}")
    return [p.row() for p in profiles[:top]]


def run_baseline_step(events: int, ws: Workspace) -> StepResult:
    argv = [
        sys.executable,
        "-m",
        "cdc_tools.bench",
        "--baseline-only",
        "--landing",
        str(ws.landing),
        "--baseline-out",
        str(ws.baseline_out),
    ]
    load = _load1()
    log = ws.logs / "baseline.log"
    print(f"  [baseline] PySpark job over {events:,} events ...", flush=True)
    run = run_measured(argv, env=spark_env(ws.baseline_home, ws.landing), log_path=log)
    if run.returncode != 0:
        raise BenchError(f"the baseline failed, see {log}:\n{_log_tail(log)}")
    result = StepResult("baseline", run.wall_s, events, run.peak_rss_mb, run.cpu_s, load)
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith(BASELINE_RESULT_TAG):
            result.detail = json.loads(line[len(BASELINE_RESULT_TAG) :])
    print(f"  [baseline] {run.wall_s:.1f} s, peak {run.peak_rss_mb:.0f} MB", flush=True)
    return result


# ---------------------------------------------------------------------- baseline
BASELINE_KCAT_SCHEMA = "struct<topic: string, partition: int, offset: bigint, payload: string>"
_BASELINE_SOURCE = (
    "struct<connector: string, db: string, schema: string, table: string, snapshot: string, "
    "scn: string, commit_scn: string, change_lsn: string, commit_lsn: string, "
    "event_serial_no: string>"
)
_BASELINE_PAYLOAD = (
    "before: map<string, string>, after: map<string, string>, op: string, "
    f"source: {_BASELINE_SOURCE}"
)
BASELINE_ENVELOPE_SCHEMA = f"struct<payload: struct<{_BASELINE_PAYLOAD}>, {_BASELINE_PAYLOAD}>"


def baseline_key_sql(image: str = "image") -> str:
    """A SQL expression for the primary key of the row image map ``image``, by table."""
    from cdc_tools.simulator import TABLES

    cases = []
    for name, spec in TABLES.items():
        parts = ", ".join(
            f"coalesce({image}['{column.upper()}'], {image}['{column}'])" for column in spec.key
        )
        cases.append(f"when '{name}' then concat_ws('|', {parts})")
    return f"case lower(source.table) {' '.join(cases)} end"


BASELINE_POSITION_SQL = """
    case
        when source.scn is not null then concat(
            lpad(coalesce(source.commit_scn, source.scn), 30, '0'), '.', lpad(source.scn, 30, '0'))
        else concat(
            lower(source.commit_lsn), '.', lower(coalesce(source.change_lsn, '')), '.',
            lpad(coalesce(source.event_serial_no, '0'), 18, '0'))
    end
    || case when source.snapshot in ('true', 'last') then '|0' else '|1' end
"""


def baseline_job(spark: Any, landing: Path, out: Path) -> None:
    """The job a user would write without this project: latest row per key, written once.

    Reads every landing line as text, takes the message value (the ``payload`` of a ``kcat
    -J`` record, else the line; tombstones dropped), parses it once with ``from_json``
    (row images as ``map<string,string>``, wrapped or not), orders each key's changes by
    the connector's position and keeps the last, drops keys whose last change is a delete
    or precedes their table's last truncate, and overwrites one parquet folder. No types
    are decoded, nothing is quarantined and nothing is kept for the next run.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    lines = spark.read.option("recursiveFileLookup", "true").text(str(landing))
    is_kcat = F.col("value").startswith('{"topic":')
    message = (
        F.when(is_kcat, F.from_json("value", BASELINE_KCAT_SCHEMA)["payload"])
        .when(F.trim("value") != "null", F.col("value"))
        .alias("message")
    )
    # No filter before the windows: Spark would push it below the parse and parse twice.
    # Tombstones (message null) end in one null group that the last filter drops.
    envelope = F.from_json("message", BASELINE_ENVELOPE_SCHEMA).alias("e")
    parsed = (
        lines.select(message)
        .select(envelope)
        .select(
            *(F.coalesce(f"e.payload.{c}", f"e.{c}").alias(c) for c in ("op", "before", "after")),
            F.coalesce("e.payload.source", "e.source").alias("source"),
        )
    )
    table = ["source_db", "source_schema", "source_table"]
    changes = parsed.selectExpr(
        "source.db as source_db",
        "source.schema as source_schema",
        "lower(source.table) as source_table",
        "op",
        f"{BASELINE_POSITION_SQL} as position",
        "case when op = 'd' then before else after end as image",
        f"case when op = 't' then null else {baseline_key_sql()} end as key",
    )
    # A truncate has no key: per table, its latest truncate tops the null-key group.
    latest = Window.partitionBy(*table, "key").orderBy(F.desc("position"))
    truncate = F.when(F.col("op") == "t", F.col("position"))
    current = (
        changes.withColumn("rank", F.row_number().over(latest))
        .where("rank = 1")
        .withColumn("truncated_at", F.max(truncate).over(Window.partitionBy(*table)))
        .where("op in ('c', 'u', 'r') and (truncated_at is null or position > truncated_at)")
        .drop("rank", "truncated_at")
    )
    current.write.mode("overwrite").parquet(str(out))


def baseline_spark() -> Any:
    """A plain Spark session with the local profile's settings (no Hive metastore)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    from cdc_tools.local_spark import local_spark_conf

    builder = SparkSession.builder
    for key, value in local_spark_conf().items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def baseline_main(landing: Path, out: Path) -> int:
    spark = baseline_spark()
    started = time.monotonic()
    baseline_job(spark, landing, out)
    job_s = time.monotonic() - started
    rows = spark.read.parquet(str(out)).count()
    spark.stop()
    print(BASELINE_RESULT_TAG + json.dumps({"job_s": round(job_s, 2), "current_rows": rows}))
    return 0


# ---------------------------------------------------------------------- scenario
@dataclass
class Scenario:
    events: int
    increment_events: int
    generation: GenerationStats
    steps: dict[str, StepResult] = field(default_factory=dict)

    @property
    def initial_events(self) -> int:
        return self.events - self.increment_events


def run_scenario(
    events: int,
    increment_events: int,
    *,
    flavours: Sequence[str],
    results_dir: Path,
    with_baseline: bool,
    keep: bool,
    batch_events: int = DEFAULT_BATCH_EVENTS,
    project_rev: str | None = None,
    event_logs: bool = False,
) -> Scenario:
    ws = Workspace(results_dir / f"n{events}")
    shutil.rmtree(ws.root, ignore_errors=True)
    ws.root.mkdir(parents=True)
    print(f"== {events:,} events ({increment_events:,} held back for the increment) ==")
    snapshot_project(ws.project, project_rev)
    plans = plan_sources(events, flavours, increment_events)
    generation = generate(plans, ws.landing, ws.increment, batch_events)
    print(
        f"  generated {generation.events + generation.held_back:,} events in "
        f"{generation.seconds:.1f} s: {generation.files} files, "
        f"{generation.bytes / 2**20:.0f} MB (+{generation.held_back:,} held back)",
        flush=True,
    )
    scenario = Scenario(events, generation.held_back, generation)
    try:
        logs = {"event_logs": event_logs}
        scenario.steps["full"] = run_dbt_step("full", generation.events, ws, **logs)
        if with_baseline:
            scenario.steps["baseline"] = run_baseline_step(generation.events, ws)
        add_increment(ws.increment, ws.landing)
        scenario.steps["incremental"] = run_dbt_step(
            "incremental", generation.held_back, ws, **logs
        )
        scenario.steps["no-op"] = run_dbt_step("no-op", 0, ws, **logs)
        if with_baseline:
            scenario.steps["floor"] = run_dbt_step("floor", 0, ws, floor=True)
    finally:
        if not keep:
            ws.clean_data()
    return scenario


# ----------------------------------------------------------------------- summary
def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator > 0 else None


def compute_ratios(
    steps: Mapping[str, StepResult], measure: str = "wall_s"
) -> dict[str, float | None]:
    """full / baseline and (incremental - no-op) / (full - no-op), where measured.

    ``measure`` is ``wall_s`` (the targets) or ``cpu_s`` (CPU time of the process trees,
    less sensitive to other load on a shared machine)."""
    ratios: dict[str, float | None] = {"full_over_baseline": None, "incremental_share": None}
    value = {name: float(getattr(step, measure)) for name, step in steps.items()}
    if "full" in value and "baseline" in value:
        ratios["full_over_baseline"] = _ratio(value["full"], value["baseline"])
    if {"full", "incremental", "no-op"} <= value.keys():
        ratios["incremental_share"] = _ratio(
            value["incremental"] - value["no-op"], value["full"] - value["no-op"]
        )
    return ratios


def check_targets(ratios: Mapping[str, float | None]) -> list[dict[str, Any]]:
    """The issue's targets with the measured value and pass/fail (None: not measured)."""
    targets = [
        ("full_over_baseline", "full dbt build <= 2.0x baseline", FULL_OVER_BASELINE_TARGET),
        (
            "incremental_share",
            "(incremental - no-op) <= 5% of (full - no-op)",
            INCREMENTAL_SHARE_TARGET,
        ),
    ]
    checked = []
    for key, label, limit in targets:
        value = ratios.get(key)
        checked.append(
            {
                "target": label,
                "ratio": key,
                "limit": limit,
                "value": None if value is None else round(value, 4),
                "passed": None if value is None else value <= limit,
            }
        )
    return checked


def scaling_row(scenario: Scenario) -> dict[str, Any]:
    steps = scenario.steps
    full, incremental, noop = steps["full"], steps["incremental"], steps["no-op"]
    return {
        "events": scenario.events,
        "full_events": full.events,
        "full_s": round(full.wall_s, 2),
        "full_events_per_s": round(full.events_per_s or 0),
        "full_minus_noop_s": round(full.wall_s - noop.wall_s, 2),
        "increment_events": incremental.events,
        "incremental_s": round(incremental.wall_s, 2),
        "incremental_minus_noop_s": round(incremental.wall_s - noop.wall_s, 2),
        "noop_s": round(noop.wall_s, 2),
        "full_peak_rss_mb": round(full.peak_rss_mb),
        "full_cpu_s": round(full.cpu_s, 1),
        "incremental_cpu_s": round(incremental.cpu_s, 1),
        "noop_cpu_s": round(noop.cpu_s, 1),
    }


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_count": os.cpu_count(),
        "total_memory_mb": _meminfo_mb("MemTotal"),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "java": _java_version(),
        "spark_driver_memory": os.environ.get("CDC_SPARK_DRIVER_MEMORY", "4g (profile default)"),
        "spark_master": os.environ.get("CDC_SPARK_MASTER", "local[*] (profile default)"),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    for package in ("pyspark", "dbt-core", "dbt-spark"):
        try:
            info[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            info[package] = None
    return info


def _meminfo_mb(key: str) -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(f"{key}:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def _java_version() -> str | None:
    try:
        done = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    except OSError:
        return None
    lines = (done.stderr or done.stdout).splitlines()
    return lines[0] if lines else None


def build_report(
    main: Scenario, scaling: Sequence[Scenario], config: Mapping[str, Any]
) -> dict[str, Any]:
    ratios = compute_ratios(main.steps)
    full_detail = main.steps["full"].detail if "full" in main.steps else {}
    incremental = main.steps.get("incremental")
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "config": dict(config),
        "machine": machine_info(),
        "generation": asdict(main.generation),
        "rows": [main.steps[s].row() for s in STEPS if s in main.steps],
        "ratios": {k: None if v is None else round(v, 4) for k, v in ratios.items()},
        "cpu_ratios": {
            k: None if v is None else round(v, 4)
            for k, v in compute_ratios(main.steps, "cpu_s").items()
        },
        "targets": check_targets(ratios),
        "baseline": main.steps["baseline"].detail if "baseline" in main.steps else {},
        "full_run_timing": full_detail,
        "incremental_run_timing": incremental.detail if incremental else {},
        "scaling": [scaling_row(s) for s in sorted(scaling, key=lambda s: s.events)],
        "scenarios": [
            {
                "events": s.events,
                "rows": [s.steps[step].row() for step in STEPS if step in s.steps],
                "node_seconds": {
                    step: {n["name"]: n["seconds"] for n in s.steps[step].detail.get("nodes", [])}
                    for step in ("full", "incremental", "no-op")
                    if step in s.steps
                },
            }
            for s in sorted(scaling or [main], key=lambda s: s.events)
        ],
    }


# ---------------------------------------------------------------------- rendering
RESULT_HEADERS = (
    "step",
    "wall s",
    "events",
    "events/s",
    "peak RSS MB",
    "CPU s",
    "load1 before",
)
SCALING_HEADERS = (
    "events",
    "full s",
    "full events/s",
    "full - no-op s",
    "increment events",
    "incremental s",
    "incremental - no-op s",
    "no-op s",
    "full peak MB",
)


def _result_rows(report: Mapping[str, Any]) -> list[list[Any]]:
    return [
        [
            r["step"],
            r["wall_s"],
            r["events"],
            r["events_per_s"],
            r["peak_rss_mb"],
            r["cpu_s"],
            r["load_before"],
        ]
        for r in report["rows"]
    ]


def format_ratio(key: str, value: float | None) -> str | None:
    """full/baseline as a multiple, the incremental share as a percentage."""
    if value is None:
        return None
    return f"{value:.2f}x" if key == "full_over_baseline" else f"{100 * value:.1f}%"


def _target_rows(report: Mapping[str, Any]) -> list[list[Any]]:
    cpu = report.get("cpu_ratios") or {}
    return [
        [
            t["target"],
            format_ratio(t["ratio"], t["value"]),
            t["passed"],
            format_ratio(t["ratio"], cpu.get(t["ratio"])),
        ]
        for t in report["targets"]
    ]


TARGET_HEADERS = ("target (wall time)", "measured", "result", "same ratio on CPU time")


def _scaling_rows(report: Mapping[str, Any]) -> list[list[Any]]:
    keys = (
        "events",
        "full_s",
        "full_events_per_s",
        "full_minus_noop_s",
        "increment_events",
        "incremental_s",
        "incremental_minus_noop_s",
        "noop_s",
        "full_peak_rss_mb",
    )
    return [[row[k] for k in keys] for row in report["scaling"]]


def _top_nodes(timing: Mapping[str, Any], limit: int) -> list[list[Any]]:
    nodes = timing.get("nodes", [])
    total = sum(n["seconds"] for n in nodes) or 1.0
    return [
        [
            n.get("name", n["node"])[:72],
            n["seconds"],
            n.get("compile_s"),
            n.get("execute_s"),
            f"{100 * n['seconds'] / total:.0f}%",
        ]
        for n in nodes[:limit]
    ]


NODE_HEADERS = ("node (full run)", "seconds", "compile s", "execute s", "share of nodes")


def _timing_line(timing: Mapping[str, Any]) -> str:
    kinds = ", ".join(f"{kind}s {s:.1f} s" for kind, s in timing["seconds_by_kind"].items())
    return (
        f"Full run: {timing['outside_dbt_s']} s before/after dbt (Python, imports), "
        f"{timing['setup_s']} s from dbt's start to its first node (parse, Spark session, "
        f"relation cache), dbt elapsed {timing['dbt_elapsed_s']} s; nodes: {kinds}."
    )


def render_text(report: Mapping[str, Any], top: int = 12) -> str:
    parts = [text_table(RESULT_HEADERS, _result_rows(report)), ""]
    parts.append(text_table(TARGET_HEADERS, _target_rows(report)))
    timing = report.get("full_run_timing") or {}
    if timing:
        parts += ["", _timing_line(timing), text_table(NODE_HEADERS, _top_nodes(timing, top))]
    if report.get("scaling"):
        parts += ["", text_table(SCALING_HEADERS, _scaling_rows(report))]
    return "\n".join(parts)


def render_markdown(report: Mapping[str, Any], top: int = 12) -> str:
    machine = report["machine"]
    generation = report["generation"]
    parts = [
        f"# Benchmark ({report['date']})",
        "",
        f"Machine: {machine.get('nproc')} cores, {machine.get('total_memory_mb')} MB; "
        f"Spark {machine.get('pyspark')}, dbt-core {machine.get('dbt-core')}, "
        f"dbt-spark {machine.get('dbt-spark')}, {machine.get('java')}; "
        f"load average at start {machine.get('load_average')}.",
        "",
        f"Data: {generation['events'] + generation['held_back']:,} simulated events "
        f"({generation['held_back']:,} held back for the increment), {generation['files']} "
        f"files, {generation['bytes'] / 2**20:.0f} MB, generated in "
        f"{generation['seconds']:.1f} s (not measured).",
        "",
        markdown_table(RESULT_HEADERS, _result_rows(report)),
        "",
        markdown_table(TARGET_HEADERS, _target_rows(report)),
    ]
    timing = report.get("full_run_timing") or {}
    if timing:
        parts += [
            "",
            _timing_line(timing),
            "",
            markdown_table(NODE_HEADERS, _top_nodes(timing, top)),
        ]
    for key, run in (("full_run_timing", "full"), ("incremental_run_timing", "incremental")):
        rows = (report.get(key) or {}).get("spark_profile") or []
        if rows:
            parts += [
                "",
                f"Spark statements by node ({run} run, from its event log; node s beyond "
                "Spark s is dbt's own work):",
                "",
                markdown_table(SPARK_PROFILE_HEADERS, [list(r.values()) for r in rows]),
            ]
    if report.get("scaling"):
        parts += ["", "Scaling:", "", markdown_table(SCALING_HEADERS, _scaling_rows(report))]
    return "\n".join(parts) + "\n"


def write_report(report: Mapping[str, Any], results_dir: Path) -> tuple[Path, Path]:
    results_dir.mkdir(parents=True, exist_ok=True)
    json_path = results_dir / "bench.json"
    md_path = results_dir / "bench.md"
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    md_path.write_text(render_markdown(report))
    return json_path, md_path


# --------------------------------------------------------------------------- CLI
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m cdc_tools.bench", description=__doc__)
    parser.add_argument("--events", type=lambda s: parse_counts(s)[0], default=DEFAULT_EVENTS)
    parser.add_argument("--increment-fraction", type=float, default=DEFAULT_INCREMENT_FRACTION)
    parser.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS_DIR)
    parser.add_argument("--flavours", default=",".join(DEFAULT_FLAVOURS))
    parser.add_argument(
        "--scaling",
        type=parse_counts,
        default=[],
        help="other event counts to run (full, incremental, no-op), e.g. 100000,300000",
    )
    parser.add_argument("--batch-events", type=int, default=DEFAULT_BATCH_EVENTS)
    parser.add_argument(
        "--project-rev",
        help="measure this git revision of the dbt project (default: the working tree)",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep landing files and warehouses after the run"
    )
    parser.add_argument(
        "--event-logs",
        action="store_true",
        help="Spark event logs of the dbt runs, profiled per node (cdc_tools.spark_profile)",
    )
    parser.add_argument("--baseline-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--landing", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--baseline-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 0 < args.increment_fraction < 1:
        parser.error("--increment-fraction must be within (0, 1)")
    if args.baseline_only and (args.landing is None or args.baseline_out is None):
        parser.error("--baseline-only needs --landing and --baseline-out")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.baseline_only:
        return baseline_main(args.landing, args.baseline_out)
    from cdc_tools.simulator import FLAVOURS

    flavours = [f.strip() for f in args.flavours.split(",") if f.strip()]
    unknown = sorted(set(flavours) - set(FLAVOURS))
    if unknown:
        raise SystemExit(f"unknown flavours {unknown}; known: {', '.join(FLAVOURS)}")
    results_dir: Path = args.results_dir.resolve()
    increment_events = round(args.events * args.increment_fraction)
    config = {
        "events": args.events,
        "increment_fraction": args.increment_fraction,
        "increment_events": increment_events,
        "flavours": flavours,
        "batch_events": args.batch_events,
        "scaling": args.scaling,
        "command": " ".join(["python -m cdc_tools.bench", *(argv or sys.argv[1:])]),
        "project": project_info(args.project_rev),
    }
    common = {
        "flavours": flavours,
        "results_dir": results_dir,
        "keep": args.keep,
        "event_logs": args.event_logs,
        "batch_events": args.batch_events,
        "project_rev": args.project_rev,
    }
    main_scenario = run_scenario(args.events, increment_events, with_baseline=True, **common)
    scenarios = [main_scenario]
    report = build_report(main_scenario, scenarios if args.scaling else [], config)
    write_report(report, results_dir)
    for events in sorted(set(args.scaling) - {args.events}):
        scenarios.append(
            run_scenario(events, min(increment_events, events), with_baseline=False, **common)
        )
        report = build_report(main_scenario, scenarios, config)
        write_report(report, results_dir)
    print()
    print(render_text(report))
    json_path, md_path = write_report(report, results_dir)
    print(f"\nwritten: {json_path} and {md_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
