"""Scenario: the steps of one size."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cdc_tools.bench.generation import GenerationStats, add_increment, generate
from cdc_tools.bench.planning import plan_sources
from cdc_tools.bench.project import snapshot_project
from cdc_tools.bench.settings import DEFAULT_BATCH_EVENTS
from cdc_tools.bench.steps import StepResult, Workspace, run_baseline_step, run_dbt_step


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
