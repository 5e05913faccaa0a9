"""Scenario: the steps of one size."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.bench.generation import GenerationStats, add_increment, generate
from workbench.bench.planning import plan_sources
from workbench.bench.project import snapshot_project
from workbench.bench.settings import DEFAULT_BATCH_EVENTS
from workbench.bench.steps import StepResult, Workspace, run_baseline_step, run_dbt_step


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
    print(f"  generating {events:,} events from {len(plans)} simulated sources ...", flush=True)
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


LARGE_FILE_NAME = "large/all-sources.kcat.jsonl"
"""Where the large-file scenario's one landing file lands, under its landing folder."""


def run_large_file_scenario(
    target_mb: int,
    bytes_per_event: float,
    *,
    flavours: Sequence[str],
    results_dir: Path,
    keep: bool,
    project_rev: str | None = None,
) -> StepResult:
    """One landing file of about ``target_mb`` MB (every source's events as ``kcat -J``
    records, which carry their own topic, partition and offset), loaded by a full
    ``dbt build`` on the default driver memory: the step's wall time and peak RSS.

    ``bytes_per_event``: the main scenario's average, to size the file."""
    ws = Workspace(results_dir / "large-file")
    shutil.rmtree(ws.root, ignore_errors=True)
    ws.root.mkdir(parents=True)
    events = max(1, round(target_mb * 2**20 / bytes_per_event))
    print(f"== one landing file of about {target_mb:,} MB ({events:,} events) ==", flush=True)
    snapshot_project(ws.project, project_rev)
    plans = [dataclasses.replace(p, fmt="kcat") for p in plan_sources(events, flavours, 0)]
    parts = ws.root / "parts"
    generation = generate(plans, parts, ws.increment, events)
    large = ws.landing / LARGE_FILE_NAME
    large.parent.mkdir(parents=True)
    with large.open("wb") as out:
        for part in sorted(p for p in parts.rglob("*") if p.is_file()):
            with part.open("rb") as source:
                shutil.copyfileobj(source, out, 2**24)
    shutil.rmtree(parts)
    size_mb = large.stat().st_size / 2**20
    print(f"  wrote {generation.events:,} events as one file of {size_mb:,.0f} MB", flush=True)
    try:
        step = run_dbt_step("large-file", generation.events, ws)
        step.detail["file_mb"] = round(size_mb)
        return step
    finally:
        if not keep:
            ws.clean_data()
