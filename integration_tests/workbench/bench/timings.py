"""dbt timings: per-node seconds from run_results.json."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


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
        return short_name(self.unique_id)


def short_name(unique_id: str) -> str:
    """``model stg_cdc__messages`` for ``model.cdc_lakehouse.stg_cdc__messages``: the bench's
    node names (no project name, no test hash)."""
    parts = unique_id.split(".")
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
