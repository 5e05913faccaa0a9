"""Scenario: the steps of one size."""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.bench.anchors import (
    delta_anchor_available,
    run_full_anchors,
    run_incremental_anchors,
)
from workbench.bench.generation import GenerationStats, add_increment, generate
from workbench.bench.planning import plan_sources
from workbench.bench.project import snapshot_project
from workbench.bench.settings import DEFAULT_BATCH_EVENTS
from workbench.bench.steps import StepResult, Workspace, run_dbt_step
from workbench.bench.warm_engine import WARM_FORMAT


class _WarmServer:
    """Whether the bench's Connect server has had its first build (once per server)."""

    warmed = False


warm_server = _WarmServer()


@dataclass
class Scenario:
    events: int
    increment_events: int
    generation: GenerationStats
    steps: dict[str, StepResult] = field(default_factory=dict)
    gold_format: str = "parquet"
    anchor_check: dict[str, Any] | None = None
    """The check that every anchor holds the same rows (workbench.bench.anchor_check)."""

    @property
    def initial_events(self) -> int:
        return self.events - self.increment_events


def run_scenario(
    events: int,
    increment_events: int,
    *,
    flavours: Sequence[str],
    results_dir: Path,
    with_floor: bool,
    keep: bool,
    batch_events: int = DEFAULT_BATCH_EVENTS,
    project_rev: str | None = None,
    event_logs: bool = False,
    gold_format: str = "parquet",
    anchors: bool = True,
) -> Scenario:
    """One size on one gold format (:func:`run_scenarios`)."""
    return run_scenarios(
        events,
        increment_events,
        formats=[gold_format],
        flavours=flavours,
        results_dir=results_dir,
        with_floor=with_floor,
        anchors=anchors,
        keep=keep,
        batch_events=batch_events,
        project_rev=project_rev,
        event_logs=event_logs,
    )[0]


def format_workspace(results_dir: Path, events: int, gold_format: str, first: bool) -> Workspace:
    """``n<events>`` for the first format (it also holds the floor and the anchors),
    ``n<events>-<format>`` for the others."""
    return Workspace(results_dir / (f"n{events}" if first else f"n{events}-{gold_format}"))


def _link_or_copy(source: str, dest: str) -> None:
    try:
        os.link(source, dest)
    except OSError:
        shutil.copy2(source, dest)


def _link_tree(source: Path, dest: Path) -> None:
    """``dest`` as hard links to ``source``'s files (the landing files are only read)."""
    if source.is_dir():
        shutil.copytree(source, dest, copy_function=_link_or_copy)


def run_scenarios(
    events: int,
    increment_events: int,
    *,
    formats: Sequence[str],
    flavours: Sequence[str],
    results_dir: Path,
    with_floor: bool,
    keep: bool,
    batch_events: int = DEFAULT_BATCH_EVENTS,
    project_rev: str | None = None,
    event_logs: bool = False,
    anchors: bool = True,
) -> list[Scenario]:
    """One size on each gold format, one Scenario per format, in the order of ``formats``.

    The events are generated once; each format gets a workspace of its own (project copy,
    Spark home and warehouse) with the same landing files as hard links. The steps alternate
    between the formats (every full build, then every incremental, then every no-op), so
    that a change of load on a shared machine falls on each format alike.

    ``anchors``: after the full builds, the full anchors (the hand-written PySpark job and
    DuckDB, workbench.bench.anchors); after the incremental builds, the incremental ones
    and the check of their rows; once, in the first format's workspace. ``with_floor``:
    the floor, on the first format and on the warm engine's."""
    workspaces = [
        format_workspace(results_dir, events, fmt, index == 0) for index, fmt in enumerate(formats)
    ]
    for ws in workspaces:
        shutil.rmtree(ws.root, ignore_errors=True)
        ws.root.mkdir(parents=True)
    first = workspaces[0]
    print(f"== {events:,} events ({increment_events:,} held back for the increment) ==")
    for ws in workspaces:
        snapshot_project(ws.project, project_rev)
    plans = plan_sources(events, flavours, increment_events)
    print(f"  generating {events:,} events from {len(plans)} simulated sources ...", flush=True)
    generation = generate(plans, first.landing, first.increment, batch_events)
    print(
        f"  generated {generation.events + generation.held_back:,} events in "
        f"{generation.seconds:.1f} s: {generation.files} files, "
        f"{generation.bytes / 2**20:.0f} MB (+{generation.held_back:,} held back)",
        flush=True,
    )
    for ws in workspaces[1:]:
        _link_tree(first.landing, ws.landing)
        _link_tree(first.increment, ws.increment)
    scenarios = [
        Scenario(events, generation.held_back, generation, gold_format=fmt) for fmt in formats
    ]
    pairs = list(zip(scenarios, workspaces, strict=True))
    try:
        logs = {"event_logs": event_logs}
        for scenario, ws in pairs:
            if scenario.gold_format == WARM_FORMAT and not warm_server.warmed:
                # a freshly started server's first build (a cold JVM), measured apart: the
                # same full build into schemas of its own
                scenario.steps["first-build"] = run_dbt_step(
                    "first-build", generation.events, ws, gold_format=WARM_FORMAT,
                    spark_home=ws.root / "first-build-home",
                )  # fmt: skip
                warm_server.warmed = True
        for scenario, ws in pairs:
            scenario.steps["full"] = run_dbt_step(
                "full", generation.events, ws, gold_format=scenario.gold_format, **logs
            )
        delta = anchors and delta_anchor_available()
        if anchors:
            if not delta:
                print("  no Delta jars (make setup): the Delta anchor does not run", flush=True)
            scenarios[0].steps.update(run_full_anchors(generation.events, first, delta))
            # the new files the incremental anchors are handed, before they land
            shutil.rmtree(first.anchor_increment, ignore_errors=True)
            _link_tree(first.increment, first.anchor_increment)
        for scenario, ws in pairs:
            add_increment(ws.increment, ws.landing)
            scenario.steps["incremental"] = run_dbt_step(
                "incremental", generation.held_back, ws, gold_format=scenario.gold_format, **logs
            )
        if anchors:
            steps, check = run_incremental_anchors(generation.held_back, first, delta)
            scenarios[0].steps.update(steps)
            scenarios[0].anchor_check = check
        for scenario, ws in pairs:
            scenario.steps["no-op"] = run_dbt_step(
                "no-op", 0, ws, gold_format=scenario.gold_format, **logs
            )
        if with_floor:
            for scenario, ws in pairs:
                if ws is first or scenario.gold_format == WARM_FORMAT:
                    scenario.steps["floor"] = run_dbt_step(
                        "floor", 0, ws, floor=True, gold_format=scenario.gold_format
                    )
    finally:
        if not keep:
            for ws in workspaces:
                ws.clean_data()
    return scenarios


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
    gold_format: str = "parquet",
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
        step = run_dbt_step("large-file", generation.events, ws, gold_format=gold_format)
        step.detail["file_mb"] = round(size_mb)
        return step
    finally:
        if not keep:
            ws.clean_data()
