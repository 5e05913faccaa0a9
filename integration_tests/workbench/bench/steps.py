"""Steps: each measured run (full, incremental, no-op, floor, baseline)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cdc_tools.local_spark import PROFILES_DIR, REPO_ROOT
from cdc_tools.spark_jars import JARS_DIR_ENV, jars_dir
from workbench import spark_profile
from workbench.bench import node_profile
from workbench.bench.formats import GOLD_FORMAT_TARGETS, file_format
from workbench.bench.project import built_project
from workbench.bench.sampling import dbt_progress, log_tail, run_measured
from workbench.bench.settings import BASELINE_RESULT_TAG, FLOOR_PROJECT, BenchError
from workbench.bench.timings import timing_summary


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
    gold_format: str = "parquet"

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
    def anchors(self) -> Path:
        """The incremental anchors' states and the check (workbench.bench.anchors)."""
        return self.root / "anchors"

    @property
    def anchor_increment(self) -> Path:
        """The held-back files as the incremental anchors read them: hard links, made
        before the increment lands (the new files a hand-written job is handed)."""
        return self.anchors / "increment"

    @property
    def parquet_state(self) -> Path:
        return self.anchors / "state-parquet"

    @property
    def delta_state(self) -> Path:
        return self.anchors / "state-delta"

    @property
    def duckdb_state(self) -> Path:
        """DuckDB's state: written by its full step, the increment applied by the next."""
        return self.anchors / "state.duckdb"

    @property
    def duckdb_full_state(self) -> Path:
        """A copy of DuckDB's state after its full step, for the check."""
        return self.anchors / "full.duckdb"

    @property
    def delta_export(self) -> Path:
        """The Delta state as plain parquet, for the check."""
        return self.anchors / "delta-export"

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
            self.anchors,
            self.project,
            self.floor_project,
            self.floor_home,
        ):
            shutil.rmtree(folder, ignore_errors=True)


def spark_env(spark_home: Path, landing: Path, gold_format: str | None = None) -> dict[str, str]:
    """The environment of a measured subprocess: its own Spark home, the landing folder.

    ``gold_format``: gold's file format (CDC_GOLD_FILE_FORMAT) and the profile target it
    runs on (DBT_TARGET; not with the thrift target, whose server has its catalogs)."""
    env = dict(os.environ)
    # the profile's default `jars` is relative: the measured builds run in a project copy
    env[JARS_DIR_ENV] = str(jars_dir())
    if gold_format is not None:
        env["CDC_GOLD_FILE_FORMAT"] = file_format(gold_format)
        if env.get("DBT_TARGET") != "thrift":
            env["DBT_TARGET"] = GOLD_FORMAT_TARGETS[gold_format]
    schema = env.get("CDC_BENCH_SCHEMA", "bench")
    if env.get("DBT_TARGET") in ("thrift", "connect"):
        # one server, one metastore: each scenario's steps (and its floor) get schemas of
        # their own, where the local profile gets a Spark home of its own
        schema = f"{schema}_{spark_home.parent.name}_{spark_home.name}".replace("-", "_")
    env.update(
        {
            "CDC_SPARK_HOME": str(spark_home),
            "CDC_LANDING_DIR": str(landing),
            "CDC_SCHEMA": schema,
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
    step: str,
    events: int,
    ws: Workspace,
    *,
    floor: bool = False,
    event_logs: bool = False,
    gold_format: str = "parquet",
    spark_home: Path | None = None,
) -> StepResult:
    """One measured ``dbt build`` subprocess; keeps a copy of its run_results.json.

    ``floor``: build the one-model FLOOR_PROJECT in a Spark home of its own instead.
    ``event_logs``: Spark writes an event log under ``<scenario>/event-logs/<step>``, and
    ``spark_profile_<step>.md`` (with the slowest statements' plans) is written beside it.
    ``gold_format``: gold's file format, on its profile target (GOLD_FORMAT_TARGETS).
    ``spark_home``: another Spark home than the workspace's (on a server: other schemas)."""
    slug = step.replace("-", "")
    project, target = built_project(ws.project), ws.target
    spark_home = spark_home or ws.spark_home
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
        str(ws.logs / "dbt" / slug),
        # every statement and its seconds, per node (workbench.bench.node_profile)
        "--log-format-file",
        "json",
        # the pipeline's work: the project's dbt unit tests are a check of its logic
        "--exclude-resource-type",
        "unit_test",
    ]
    load = _load1()
    log = ws.logs / f"{slug}.log"
    what = "one table of one row" if floor else f"{events:,} new events"
    label = f"{step} {gold_format}" if gold_format != "parquet" else step
    print(f"  [{label}] dbt build over {what} ...", flush=True)
    env = spark_env(spark_home, ws.landing, gold_format)
    event_log_dir = ws.root / "event-logs" / slug
    # a Connect client writes no event log (the server's JVM runs the statements)
    event_logs = event_logs and env.get("DBT_TARGET") != "connect"
    if event_logs:
        event_log_dir.mkdir(parents=True, exist_ok=True)
        env.update({"CDC_SPARK_EVENT_LOG": "true", "CDC_SPARK_EVENT_LOG_DIR": str(event_log_dir)})
    progress = dbt_progress(f"[{label}]")
    run = run_measured(argv, env=env, log_path=log, cwd=project, progress=progress)
    if run.returncode != 0:
        raise BenchError(f"dbt build ({step}) failed, see {log}:\n{log_tail(log)}")
    run_results_path = target / "run_results.json"
    run_results = json.loads(run_results_path.read_text())
    shutil.copy(run_results_path, ws.root / f"run_results_{slug}.json")
    result = StepResult(step, run.wall_s, events, run.peak_rss_mb, run.cpu_s, load)
    result.gold_format = gold_format
    result.detail = timing_summary(run_results, run.wall_s)
    sent = node_profile.by_short_name(
        node_profile.statement_times(ws.logs / "dbt" / slug / "dbt.log")
    )
    result.detail["dbt_statements"] = sent
    result.detail["time_profile"] = node_profile.profile_rows(
        gold_format, step, run_results, sent, REPO_ROOT
    )
    if event_logs:
        result.detail["spark_profile"], result.detail["spark_statements"] = write_spark_profile(
            event_log_dir, run_results, ws, slug
        )
    print(f"  [{label}] {run.wall_s:.1f} s, peak {run.peak_rss_mb:.0f} MB", flush=True)
    return result


def write_spark_profile(
    event_log_dir: Path, run_results: Mapping[str, Any], ws: Workspace, slug: str, top: int = 15
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Per-node Spark figures of one step (workbench.spark_profile), as rows of the ``top``
    slowest nodes, and the Spark statements of every node; also written as
    ``spark_profile_<step>.md`` with the slowest statements' plans in ``plans_<step>/``."""
    try:
        profiles = spark_profile.profile(event_log_dir, run_results)
    except spark_profile.EventLogError as error:
        print(f"  [{slug}] no Spark profile: {error}", flush=True)
        return [], {}
    (ws.root / f"spark_profile_{slug}.md").write_text(
        spark_profile.render_markdown(profiles, top) + "\n"
    )
    spark_profile.write_plans(profiles, ws.root / f"plans_{slug}")
    return [p.row() for p in profiles[:top]], {p.name: len(p.executions) for p in profiles}


ANCHOR_LABELS: Mapping[str, str] = {
    "baseline": "PySpark job over",
    "duckdb-full": "DuckDB over",
    "baseline-incremental": "PySpark job (parquet state) applying",
    "baseline-incremental-delta": "PySpark job (Delta state) applying",
    "duckdb-incremental": "DuckDB applying",
    "anchor-prepare": "the incremental anchors' states from the baseline's output (not timed)",
    "anchor-check": "every anchor's rows compared (not timed)",
}


def anchor_argv(step: str, ws: Workspace, delta: bool = True) -> list[str]:
    """The command of one anchor (`python -m workbench.bench --anchor STEP`) on the
    workspace ``ws``; ``delta``: the Delta anchor runs (its state, its check)."""
    argv = [sys.executable, "-m", "workbench.bench", "--anchor", step, "--workspace", str(ws.root)]
    return argv if delta else [*argv, "--without-delta"]


def run_anchor_step(step: str, events: int, ws: Workspace, delta: bool = True) -> StepResult:
    """One anchor as a measured subprocess (its own Spark home, `baseline_home`); its
    log's BASELINE_RESULT_TAG line goes to the result's detail."""
    load = _load1()
    slug = step.replace("-", "_")
    log = ws.logs / f"{slug}.log"
    what = f" {events:,} events" if step in ANCHOR_LABELS and events else ""
    print(f"  [{step}] {ANCHOR_LABELS.get(step, step)}{what} ...", flush=True)
    env = spark_env(ws.baseline_home, ws.landing)
    run = run_measured(anchor_argv(step, ws, delta), env=env, log_path=log)
    if run.returncode != 0:
        raise BenchError(f"the anchor {step} failed, see {log}:\n{log_tail(log)}")
    result = StepResult(step, run.wall_s, events, run.peak_rss_mb, run.cpu_s, load)
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith(BASELINE_RESULT_TAG):
            result.detail = json.loads(line[len(BASELINE_RESULT_TAG) :])
    print(f"  [{step}] {run.wall_s:.1f} s, peak {run.peak_rss_mb:.0f} MB", flush=True)
    return result


def run_baseline_step(events: int, ws: Workspace) -> StepResult:
    """The full baseline (the hand-written PySpark job over every landing file)."""
    return run_anchor_step("baseline", events, ws)
