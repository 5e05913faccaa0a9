"""Rendering: the report as text and markdown."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.bench.anchor_table import render_anchor_section
from workbench.bench.budget import BUDGET_HEADERS
from workbench.bench.formats import render_formats
from workbench.bench.node_profile import PROFILE_HEADERS
from workbench.bench.plot import PLOT_NAME, plot_report
from workbench.spark_profile import PROFILE_HEADERS as SPARK_PROFILE_HEADERS
from workbench.tables import markdown_table, text_table

BUDGET_TITLE = (
    "Statements per node against the budget of its kind (workbench.bench.budget; the "
    "statements dbt sent, from its log, the most one node of the kind sent):"
)
PROFILE_TITLE = (
    "Where each step's time went, by node kind (workbench.bench.node_profile: node s from "
    "run_results.json; statements and their seconds from dbt's log; client s = node s - "
    "statement s, dbt's own work):"
)
TIME_PROFILE_HEADERS = ("events", *PROFILE_HEADERS)

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
    """full/baseline and the increment's growth as multiples, the incremental share as a
    percentage, memory in MB."""
    if value is None:
        return None
    if key == "full_peak_rss_mb":
        return f"{value:,.0f} MB"
    if key in ("full_over_baseline", "incremental_growth"):
        return f"{value:.2f}x"
    return f"{100 * value:.1f}%"


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


TARGET_HEADERS = (
    "target (issue 28, first format, wall time)",
    "measured",
    "result",
    "same ratio on CPU time",
)


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


def large_file_line(report: Mapping[str, Any]) -> str | None:
    """The large-file scenario in one sentence, or None when it did not run."""
    large = report.get("large_file")
    if not large:
        return None
    return (
        f"One landing file of {large['file_mb']:,} MB ({large['events']:,} events): full "
        f"build {large['wall_s']} s, peak RSS {large['peak_rss_mb']:,} MB, on the default "
        "driver memory."
    )


def render_text(report: Mapping[str, Any], top: int = 12) -> str:
    parts = [text_table(RESULT_HEADERS, _result_rows(report)), ""]
    parts.append(text_table(TARGET_HEADERS, _target_rows(report)))
    if report.get("anchors"):
        parts += ["", render_anchor_section(report["anchors"], markdown=False)]
    if line := large_file_line(report):
        parts += ["", line]
    timing = report.get("full_run_timing") or {}
    if timing:
        parts += ["", _timing_line(timing), text_table(NODE_HEADERS, _top_nodes(timing, top))]
    if report.get("scaling"):
        parts += ["", text_table(SCALING_HEADERS, _scaling_rows(report))]
    if report.get("gold_formats"):
        parts += ["", render_formats(report["gold_formats"], markdown=False)]
    if report.get("statement_budget"):
        parts += ["", BUDGET_TITLE, text_table(BUDGET_HEADERS, report["statement_budget"])]
    if report.get("time_profile"):
        parts += ["", PROFILE_TITLE, text_table(TIME_PROFILE_HEADERS, report["time_profile"])]
    return "\n".join(parts)


def render_markdown(report: Mapping[str, Any], top: int = 12, plot_name: str | None = None) -> str:
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
    if report.get("anchors"):
        parts += ["", render_anchor_section(report["anchors"], markdown=True)]
    if line := large_file_line(report):
        parts += ["", line]
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
    if report.get("gold_formats"):
        parts += ["", render_formats(report["gold_formats"], markdown=True)]
    if report.get("statement_budget"):
        parts += ["", BUDGET_TITLE, "", markdown_table(BUDGET_HEADERS, report["statement_budget"])]
    if report.get("time_profile"):
        parts += [
            "",
            PROFILE_TITLE,
            "",
            markdown_table(TIME_PROFILE_HEADERS, report["time_profile"]),
        ]
    if plot_name:
        parts += [
            "",
            "Plot: wall time by size (left) and the full run's slowest nodes, compile and "
            "execute (right).",
            "",
            f"![scaling and time per node]({plot_name})",
        ]
    return "\n".join(parts) + "\n"


def write_report(report: Mapping[str, Any], results_dir: Path) -> tuple[Path, Path]:
    """`bench.json`, `bench.md` and the plot `bench.png` (linked from the markdown)."""
    results_dir.mkdir(parents=True, exist_ok=True)
    json_path = results_dir / "bench.json"
    md_path = results_dir / "bench.md"
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    plot = plot_report(report, results_dir / PLOT_NAME)
    md_path.write_text(render_markdown(report, plot_name=plot.name))
    return json_path, md_path
