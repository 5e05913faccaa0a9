"""Gold formats side by side: the same steps per format, their ratios and issue 60's rule.

Issue 60 (item 4): Delta becomes the default format of gold if its demo-size full and
incremental builds take at most 1.25x parquet's and its 1M incremental build at most
parquet's. Wall time decides; CPU time is shown beside it (less sensitive to other load).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.tables import markdown_table, text_table

GOLD_FORMAT_TARGETS: Mapping[str, str] = {
    "parquet": "local",
    "delta": "delta",
    "iceberg": "iceberg",
    "connect": "connect",
}
"""Gold's file format -> the profile target (profiles/profiles.yml) it runs on. `connect` is
parquet's build on the warm engine: the `connect` target against a Spark Connect server
that the bench starts once (workbench.bench.warm_engine)."""
FILE_FORMATS: Mapping[str, str] = {"connect": "parquet"}
"""The gold file format of a column that is not named after one."""
DEFAULT_FORMATS: tuple[str, ...] = ("parquet", "delta", "connect")
REFERENCE_FORMAT = "parquet"
CANDIDATE_FORMAT = "delta"
FORMAT_STEPS: tuple[str, ...] = ("full", "incremental", "no-op")
SHOWN_STEPS: tuple[str, ...] = (*FORMAT_STEPS, "floor", "first-build")
"""The steps side by side: the floor where it ran (the first format, the warm engine's
column), the warm engine's first build."""
DEMO_EVENTS = 2_000
"""The demo's size, about (make demo)."""
SIZE_TOLERANCE = 0.25
"""A measured size stands for a nominal one within this share of it (1,500-2,500 events
for the demo, 750,000-1,250,000 for 1M)."""


@dataclass(frozen=True)
class Rule:
    """One comparison of the decision: candidate/reference on one step at one size."""

    label: str
    nominal_events: int
    step: str
    limit: float


DECISION_RULES: tuple[Rule, ...] = (
    Rule("demo-size full <= 1.25x parquet", DEMO_EVENTS, "full", 1.25),
    Rule("demo-size incremental <= 1.25x parquet", DEMO_EVENTS, "incremental", 1.25),
    Rule("1M incremental <= 1.00x parquet", 1_000_000, "incremental", 1.0),
)


FORMAT_JARS: Mapping[str, str] = {"delta": "delta-spark_", "iceberg": "iceberg-spark-runtime-"}
"""The jar (from `make setup`) each format's profile target needs, by name prefix."""


def missing_format_jars(formats: Sequence[str], jars: Path) -> list[str]:
    """The formats whose jar is not in the folder ``jars``."""
    present = [p.name for p in jars.glob("*.jar")] if jars.is_dir() else []
    return [
        fmt
        for fmt in formats
        if fmt in FORMAT_JARS and not any(n.startswith(FORMAT_JARS[fmt]) for n in present)
    ]


def file_format(fmt: str) -> str:
    """Gold's file format (CDC_GOLD_FILE_FORMAT) of the column ``fmt``."""
    return FILE_FORMATS.get(fmt, fmt)


def parse_formats(text: str) -> list[str]:
    """``"parquet, delta"`` -> ``["parquet", "delta"]``; unknown or repeated names fail."""
    names = [part.strip().lower() for part in text.split(",") if part.strip()]
    unknown = sorted(set(names) - set(GOLD_FORMAT_TARGETS))
    if unknown or not names:
        raise ValueError(
            f"unknown formats {unknown}; known: {', '.join(GOLD_FORMAT_TARGETS)}"
            if unknown
            else "at least one format is needed"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"a format is named twice: {text}")
    return names


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator; None where either is missing or the denominator is not
    positive."""
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


def comparison_rows(
    measured: Mapping[str, Mapping[int, Mapping[str, Mapping[str, float]]]],
) -> list[dict[str, Any]]:
    """One row per size and step from ``measured[format][events][step] = {"wall_s",
    "cpu_s"}``: each format's seconds, and each other format over parquet (None where either
    is missing)."""
    sizes = sorted({events for by_size in measured.values() for events in by_size})
    rows = []
    for events in sizes:
        for step in SHOWN_STEPS:
            seconds = {
                fmt: dict(by_size[events][step])
                for fmt, by_size in measured.items()
                if step in by_size.get(events, {})
            }
            if not seconds:
                continue
            reference = seconds.get(REFERENCE_FORMAT, {})
            ratios = {
                fmt: {
                    measure: ratio(values.get(measure), reference.get(measure))
                    for measure in ("wall_s", "cpu_s")
                }
                for fmt, values in seconds.items()
                if fmt != REFERENCE_FORMAT
            }
            rows.append({"events": events, "step": step, "seconds": seconds, "ratios": ratios})
    return rows


def matching_size(sizes: Sequence[int], nominal: int) -> int | None:
    """The measured size nearest ``nominal`` within SIZE_TOLERANCE of it, else None."""
    near = [s for s in sizes if abs(s - nominal) <= SIZE_TOLERANCE * nominal]
    return min(near, key=lambda s: (abs(s - nominal), s)) if near else None


def decide(
    rows: Sequence[Mapping[str, Any]],
    candidate: str = CANDIDATE_FORMAT,
    rules: Sequence[Rule] = DECISION_RULES,
) -> dict[str, Any]:
    """Each rule on wall time (``passed`` None: not measured) and the verdict: the
    candidate becomes gold's default if every rule passes; one failure keeps parquet."""
    sizes = sorted({int(row["events"]) for row in rows})
    checks = []
    for rule in rules:
        events = matching_size(sizes, rule.nominal_events)
        row = next((r for r in rows if r["events"] == events and r["step"] == rule.step), None)
        ratios = (row or {}).get("ratios", {}).get(candidate, {})
        wall, cpu = ratios.get("wall_s"), ratios.get("cpu_s")
        checks.append(
            {
                "rule": rule.label.replace("delta", candidate),
                "events": events,
                "step": rule.step,
                "limit": rule.limit,
                "wall_ratio": None if wall is None else round(wall, 4),
                "cpu_ratio": None if cpu is None else round(cpu, 4),
                "passed": None if wall is None else wall <= rule.limit,
            }
        )
    results = [c["passed"] for c in checks]
    if False in results:
        verdict = f"{REFERENCE_FORMAT} stays the default format of gold"
    elif None in results:
        verdict = "not decided: a comparison was not measured"
    else:
        verdict = f"{candidate} becomes the default format of gold"
    return {
        "candidate": candidate,
        "reference": REFERENCE_FORMAT,
        "checks": checks,
        "verdict": verdict,
    }


def multiple(value: float | None) -> str | None:
    """``1.23x``, or None."""
    return None if value is None else f"{value:.2f}x"


def comparison_headers(formats: Sequence[str]) -> list[str]:
    headers = ["events", "step"]
    for fmt in formats:
        headers += [f"{fmt} wall s", f"{fmt} CPU s"]
    if REFERENCE_FORMAT in formats:
        for fmt in formats:
            if fmt != REFERENCE_FORMAT:
                headers += [f"{fmt}/{REFERENCE_FORMAT} wall", f"{fmt}/{REFERENCE_FORMAT} CPU"]
    return headers


def comparison_table_rows(
    rows: Sequence[Mapping[str, Any]], formats: Sequence[str]
) -> list[list[Any]]:
    table = []
    for row in rows:
        cells: list[Any] = [row["events"], row["step"]]
        for fmt in formats:
            values = row["seconds"].get(fmt, {})
            cells += [values.get("wall_s"), values.get("cpu_s")]
        if REFERENCE_FORMAT in formats:
            for fmt in formats:
                if fmt != REFERENCE_FORMAT:
                    ratios = row["ratios"].get(fmt, {})
                    cells += [multiple(ratios.get("wall_s")), multiple(ratios.get("cpu_s"))]
        table.append(cells)
    return table


DECISION_HEADERS = ("rule (wall time)", "events", "measured", "result", "on CPU time")


def decision_table_rows(decision: Mapping[str, Any]) -> list[list[Any]]:
    return [
        [
            check["rule"],
            check["events"],
            multiple(check["wall_ratio"]),
            "not measured" if check["passed"] is None else ("PASS" if check["passed"] else "FAIL"),
            multiple(check["cpu_ratio"]),
        ]
        for check in decision["checks"]
    ]


def statement_rows(
    counts: Mapping[str, Mapping[int, Mapping[str, Mapping[str, int]]]], formats: Sequence[str]
) -> list[list[Any]]:
    """Spark statements per node where the formats differ, from ``counts[format][events]
    [step][node]`` (the event logs' profile); the total of each step first."""
    rows: list[list[Any]] = []
    sizes = sorted({events for by_size in counts.values() for events in by_size})
    for events in sizes:
        for step in FORMAT_STEPS:
            per_format = {fmt: counts.get(fmt, {}).get(events, {}).get(step) for fmt in formats}
            if all(nodes is None for nodes in per_format.values()):
                continue
            rows.append(
                [events, step, "(all nodes)"]
                + [None if n is None else sum(n.values()) for n in per_format.values()]
            )
            names = sorted({name for n in per_format.values() if n for name in n})
            for name in names:
                values = [None if n is None else n.get(name, 0) for n in per_format.values()]
                if len(set(values)) > 1:
                    rows.append([events, step, name, *values])
    return rows


def render_formats(section: Mapping[str, Any], markdown: bool) -> str:
    """The side-by-side table, the decision and the statements per node, as one block."""
    table = markdown_table if markdown else text_table
    formats = list(section["formats"])
    parts = [
        f"Gold formats side by side ({', '.join(formats)}; the anchors and the large file "
        f"ran on {formats[0]} only, the floor on it and on connect):",
        "",
        table(comparison_headers(formats), comparison_table_rows(section["rows"], formats)),
    ]
    decision = section.get("decision")
    if decision:
        parts += [
            "",
            f"Issue 60's rule: {decision['candidate']} becomes the default format of gold if "
            "its demo-size full and incremental builds take at most 1.25x parquet's and its 1M "
            "incremental build at most parquet's.",
            "",
            table(DECISION_HEADERS, decision_table_rows(decision)),
            "",
            f"Decision: {decision['verdict']}.",
        ]
    statements = section.get("statements") or []
    if statements:
        parts += [
            "",
            "Spark statements per node where the formats differ (event logs):",
            "",
            table(["events", "step", "node", *formats], statements),
        ]
    return "\n".join(parts)
