"""Summary: ratios, targets, the scaling table and the report."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from importlib import metadata
from typing import Any

import psutil

from cdc_tools.local_spark import REPO_ROOT
from workbench.bench.anchor_table import anchor_section
from workbench.bench.budget import bench_budget_rows
from workbench.bench.formats import (
    CANDIDATE_FORMAT,
    REFERENCE_FORMAT,
    SHOWN_STEPS,
    comparison_rows,
    decide,
    statement_rows,
)
from workbench.bench.scenario import Scenario
from workbench.bench.settings import (
    FULL_OVER_BASELINE_TARGET,
    FULL_PEAK_RSS_TARGET_MB,
    INCREMENTAL_GROWTH_TARGET,
    INCREMENTAL_SHARE_TARGET,
    STEPS,
)
from workbench.bench.steps import StepResult


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator > 0 else None


def compute_ratios(
    steps: Mapping[str, StepResult], measure: str = "wall_s"
) -> dict[str, float | None]:
    """full / baseline and (incremental - no-op) / (full - no-op), where measured; with
    ``wall_s``, also the full build's peak RSS (MB).

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
    if measure == "wall_s" and "full" in steps:
        ratios["full_peak_rss_mb"] = float(steps["full"].peak_rss_mb)
    return ratios


def incremental_growth(
    main: Scenario, scaling: Sequence[Scenario], measure: str = "wall_s"
) -> float | None:
    """The same increment's cost at the largest ``--scaling`` size above ``--events``, over
    its cost at ``--events`` (#28's fourth target: cost follows the batch, not what is
    already loaded); None without a larger scenario whose full and incremental runs
    completed."""
    larger = [
        s for s in scaling if s.events > main.events and {"full", "incremental"} <= s.steps.keys()
    ]
    if not larger or "incremental" not in main.steps:
        return None
    top = max(larger, key=lambda s: s.events)
    return _ratio(
        float(getattr(top.steps["incremental"], measure)),
        float(getattr(main.steps["incremental"], measure)),
    )


def check_targets(ratios: Mapping[str, float | None]) -> list[dict[str, Any]]:
    """The issue's targets with the measured value and pass/fail (None: not measured)."""
    targets = [
        (
            "full_over_baseline",
            f"full dbt build <= {FULL_OVER_BASELINE_TARGET:.1f}x baseline",
            FULL_OVER_BASELINE_TARGET,
        ),
        (
            "incremental_share",
            "(incremental - no-op) <= 5% of (full - no-op)",
            INCREMENTAL_SHARE_TARGET,
        ),
        (
            "full_peak_rss_mb",
            f"full peak RSS <= {FULL_PEAK_RSS_TARGET_MB // 1024} GB",
            FULL_PEAK_RSS_TARGET_MB,
        ),
        (
            "incremental_growth",
            f"incremental at the largest --scaling size <= {INCREMENTAL_GROWTH_TARGET:.2f}x "
            "at --events",
            INCREMENTAL_GROWTH_TARGET,
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
        "total_memory_mb": psutil.virtual_memory().total // 2**20,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "java": _java_version(),
        "spark_driver_memory": os.environ.get("CDC_SPARK_DRIVER_MEMORY", "3g (profile default)"),
        "spark_master": os.environ.get("CDC_SPARK_MASTER", "local[*] (profile default)"),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    for package in ("pyspark", "dbt-core", "dbt-spark"):
        try:
            info[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            info[package] = None
    return info


def _java_version() -> str | None:
    try:
        done = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    except OSError:
        return None
    lines = (done.stderr or done.stdout).splitlines()
    return lines[0] if lines else None


def format_section(by_format: Mapping[str, Sequence[Scenario]]) -> dict[str, Any] | None:
    """The gold formats side by side (workbench.bench.formats), from each format's
    scenarios: seconds and ratios per size and step, issue 60's decision when parquet and
    delta both ran, and Spark statements per node where event logs were profiled. None with
    fewer than two formats."""
    if len(by_format) < 2:
        return None
    measured: dict[str, dict[int, dict[str, dict[str, float]]]] = {}
    statements: dict[str, dict[int, dict[str, dict[str, int]]]] = {}
    for fmt, scenarios in by_format.items():
        for scenario in scenarios:
            for step in SHOWN_STEPS:
                result = scenario.steps.get(step)
                if result is None:
                    continue
                measured.setdefault(fmt, {}).setdefault(scenario.events, {})[step] = {
                    "wall_s": round(result.wall_s, 2),
                    "cpu_s": round(result.cpu_s, 1),
                }
                if result.detail.get("spark_statements"):
                    statements.setdefault(fmt, {}).setdefault(scenario.events, {})[step] = dict(
                        result.detail["spark_statements"]
                    )
    rows = comparison_rows(measured)
    formats = list(by_format)
    both = {REFERENCE_FORMAT, CANDIDATE_FORMAT} <= set(formats)
    return {
        "formats": formats,
        "rows": rows,
        "decision": decide(rows) if both else None,
        "statements": statement_rows(statements, formats) if statements else [],
        "scenarios": {
            fmt: [
                {"events": s.events, "rows": [s.steps[k].row() for k in STEPS if k in s.steps]}
                for s in sorted(scenarios, key=lambda s: s.events)
            ]
            for fmt, scenarios in by_format.items()
        },
    }


def build_report(
    main: Scenario,
    scaling: Sequence[Scenario],
    config: Mapping[str, Any],
    large_file: StepResult | None = None,
    by_format: Mapping[str, Sequence[Scenario]] | None = None,
) -> dict[str, Any]:
    """The report of the first format's scenarios (``main``, ``scaling``); with
    ``by_format`` (every format's scenarios), also the formats side by side."""
    ratios = compute_ratios(main.steps)
    ratios["incremental_growth"] = incremental_growth(main, scaling)
    cpu_ratios = compute_ratios(main.steps, "cpu_s")
    cpu_ratios["incremental_growth"] = incremental_growth(main, scaling, "cpu_s")
    full_detail = main.steps["full"].detail if "full" in main.steps else {}
    incremental = main.steps.get("incremental")
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "config": dict(config),
        "machine": machine_info(),
        "generation": asdict(main.generation),
        "rows": [main.steps[s].row() for s in STEPS if s in main.steps],
        "ratios": {k: None if v is None else round(v, 4) for k, v in ratios.items()},
        "cpu_ratios": {k: None if v is None else round(v, 4) for k, v in cpu_ratios.items()},
        "targets": check_targets(ratios),
        "baseline": main.steps["baseline"].detail if "baseline" in main.steps else {},
        "full_run_timing": full_detail,
        "incremental_run_timing": incremental.detail if incremental else {},
        "scaling": [scaling_row(s) for s in sorted(scaling, key=lambda s: s.events)],
        "large_file": None
        if large_file is None
        else {**large_file.row(), "file_mb": large_file.detail.get("file_mb")},
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
        "anchors": anchor_section(
            by_format or {main.gold_format: list(scaling) or [main]}, main.events
        ),
        "gold_formats": format_section(by_format or {}),
        "statement_budget": statement_budget(main, by_format or {}),
        "time_profile": time_profile(main, by_format or {}),
    }


def statement_budget(
    main: Scenario, by_format: Mapping[str, Sequence[Scenario]]
) -> list[list[Any]]:
    """The statement budget per node kind (workbench.bench.budget) against the statements
    of each format's scenario of the main size: dbt's count (its log) where the step kept
    it, else the event logs' (`--event-logs`)."""
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for fmt, scenarios in (by_format or {main.gold_format: [main]}).items():
        for scenario in scenarios:
            if scenario.events != main.events:
                continue
            for step, result in scenario.steps.items():
                # dbt's own count (its log) where it was kept, else the event log's
                sent = result.detail.get("dbt_statements")
                if sent:
                    counts.setdefault(fmt, {})[step] = {
                        node: int(value[0]) for node, value in sent.items() if node
                    }
                elif result.detail.get("spark_statements"):
                    counts.setdefault(fmt, {})[step] = dict(result.detail["spark_statements"])
    return bench_budget_rows(counts, REPO_ROOT) if counts else []


def time_profile(main: Scenario, by_format: Mapping[str, Sequence[Scenario]]) -> list[list[Any]]:
    """Where each step's time went, per format and node kind (workbench.bench.node_profile),
    for every size each format ran: rows of `node_profile.PROFILE_HEADERS` with the size."""
    rows: list[list[Any]] = []
    for fmt, scenarios in (by_format or {main.gold_format: [main]}).items():
        for scenario in sorted(scenarios, key=lambda s: s.events):
            for step in STEPS:
                result = scenario.steps.get(step)
                if result is None:
                    continue
                for row in result.detail.get("time_profile") or []:
                    rows.append([scenario.events, fmt, *row[1:]])
    return rows
