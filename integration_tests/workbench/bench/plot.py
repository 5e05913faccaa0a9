"""Plot: the scaling table and the per-model time split of a report, as one PNG.

Left: wall seconds of the full, incremental and no-op runs by number of events (the
scaling table; the main scenario's steps alone when there is no scaling). Right: the
slowest nodes of the full run, each bar split into dbt's compile and execute phases (what
is left of a node's time is dbt's own work around them). matplotlib's Agg backend: no
display needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

STEP_LABELS: Mapping[str, str] = {
    "baseline": "baseline (PySpark)",
    "duckdb-full": "DuckDB full",
    "baseline-incremental": "incremental baseline (PySpark)",
    "baseline-incremental-delta": "incremental baseline (PySpark, Delta)",
    "duckdb-incremental": "DuckDB incremental",
}
"""The anchors' steps, as the plot names them."""
PLOT_NAME = "bench.png"
TOP_NODES = 12
SCALING_SERIES: tuple[tuple[str, str], ...] = (
    ("full_s", "full build"),
    ("incremental_s", "incremental build"),
    ("noop_s", "no-op build"),
)


def scaling_series(report: Mapping[str, Any]) -> dict[str, tuple[list[int], list[float]]]:
    """label -> (events, seconds) from the scaling table, else from the main steps."""
    rows: Sequence[Mapping[str, Any]] = report.get("scaling") or []
    if rows:
        return {
            label: ([int(r["events"]) for r in rows], [float(r[key]) for r in rows])
            for key, label in SCALING_SERIES
            if all(r.get(key) is not None for r in rows)
        }
    events = int(report.get("config", {}).get("events") or 0)
    return {
        STEP_LABELS.get(row["step"], f"{row['step']} build"): ([events], [float(row["wall_s"])])
        for row in report.get("rows", [])
        if row.get("wall_s") is not None
    }


def node_split(
    report: Mapping[str, Any], top: int = TOP_NODES
) -> list[tuple[str, float, float, float]]:
    """(node, compile s, execute s, other s) of the full run's slowest nodes."""
    nodes = (report.get("full_run_timing") or {}).get("nodes", [])[:top]
    split = []
    for node in nodes:
        seconds = float(node["seconds"])
        compile_s = float(node.get("compile_s") or 0.0)
        execute_s = float(node.get("execute_s") or 0.0)
        other = max(seconds - compile_s - execute_s, 0.0)
        split.append((str(node.get("name", node.get("node")))[:48], compile_s, execute_s, other))
    return split


def plot_report(report: Mapping[str, Any], path: Path) -> Path:
    """Write the report's plot to `path` (PNG) and return it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(14, 6), constrained_layout=True)
    for label, (events, seconds) in scaling_series(report).items():
        left.plot(events, seconds, marker="o", label=label)
    left.set_xlabel("change events")
    left.set_ylabel("wall seconds")
    left.set_title("Scaling: wall time by size")
    left.grid(True, alpha=0.3)
    if left.get_legend_handles_labels()[0]:
        left.legend()

    split = node_split(report)
    if split:
        names = [name for name, *_ in split][::-1]
        compile_s = [c for _, c, _, _ in split][::-1]
        execute_s = [e for _, _, e, _ in split][::-1]
        other_s = [o for *_, o in split][::-1]
        right.barh(names, compile_s, label="compile")
        right.barh(names, execute_s, left=compile_s, label="execute")
        right.barh(
            names,
            other_s,
            left=[c + e for c, e in zip(compile_s, execute_s, strict=True)],
            label="other (dbt)",
        )
        right.legend(loc="lower right")
    else:
        right.text(0.5, 0.5, "no per-node timings", ha="center", va="center")
    right.set_xlabel("seconds")
    right.set_title("Full run: time per node")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
