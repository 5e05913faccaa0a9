"""The step table: every gold format beside the anchors, and the ratios issue 74 uses.

One row per size and step (full, incremental, no-op): the wall seconds of each format's
build, of the hand-written PySpark jobs (full; incremental on parquet and on Delta) and of
DuckDB (full, incremental). Then, per size and format: full / baseline, full / DuckDB,
(incremental - no-op) / (full - no-op), incremental / the incremental baseline of its file
format, incremental / DuckDB's, and the increment's cost at this size over its cost at
``--events`` (when both took the same increment: a larger ``--scaling`` size); the anchors'
own growth below. Issue 74's targets are checked on the same figures
(workbench.bench.targets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workbench.bench.formats import (
    FORMAT_STEPS,
    GOLD_FORMAT_TARGETS,
    file_format,
    multiple,
    ratio,
)
from workbench.bench.settings import ANCHOR_STEPS
from workbench.bench.targets import TARGET_HEADERS, check_targets, target_rows
from workbench.tables import markdown_table, text_table

ANCHOR_COLUMNS: tuple[tuple[str, Mapping[str, str]], ...] = (
    ("PySpark", {"full": "baseline", "incremental": "baseline-incremental"}),
    ("PySpark Delta", {"incremental": "baseline-incremental-delta"}),
    ("DuckDB", {"full": "duckdb-full", "incremental": "duckdb-incremental"}),
)
"""The anchors' columns: the step each shows on the full and incremental rows."""
TABLE_STEPS: tuple[str, ...] = (*FORMAT_STEPS, "floor")
"""The steps kept per format: the rows' (full, incremental, no-op) and the floor (a
target's)."""
RATIO_HEADERS = (
    "events",
    "column",
    "full / baseline",
    "full / DuckDB",
    "(incr - no-op) / (full - no-op)",
    "incr / incr baseline",
    "incr / DuckDB incr",
    "incr / incr at --events",
)


def incremental_anchor(fmt: str) -> str:
    """The hand-written incremental job a format's incremental build is held to: the Delta
    one for gold on Delta, else the parquet one."""
    return "baseline-incremental-delta" if file_format(fmt) == "delta" else "baseline-incremental"


def column_label(fmt: str) -> str:
    """``parquet (local)``, ``delta``, ``connect``: the format and, where it differs, its
    profile target."""
    target = GOLD_FORMAT_TARGETS.get(fmt, fmt)
    return fmt if target == fmt else f"{fmt} ({target})"


def anchor_section(
    by_format: Mapping[str, Sequence[Any]], main_events: int
) -> dict[str, Any] | None:
    """The step table's figures from each format's scenarios (workbench.bench.scenario;
    the anchors ran in the first format's): wall seconds by column and size, each size's
    increment, the table's rows, the ratios, issue 74's targets and each size's check of
    the anchors' rows. None when nothing ran."""
    formats = list(by_format)
    seconds: dict[str, dict[int, dict[str, float]]] = {}
    anchors: dict[int, dict[str, float]] = {}
    increments: dict[int, int] = {}
    checks: dict[int, Any] = {}
    for fmt, scenarios in by_format.items():
        for scenario in scenarios:
            increments[scenario.events] = scenario.increment_events
            for step, result in scenario.steps.items():
                if step in TABLE_STEPS:
                    seconds.setdefault(fmt, {}).setdefault(scenario.events, {})[step] = round(
                        result.wall_s, 2
                    )
                elif step in ANCHOR_STEPS:
                    anchors.setdefault(scenario.events, {})[step] = round(result.wall_s, 2)
            if scenario.anchor_check is not None:
                checks[scenario.events] = scenario.anchor_check
    if not seconds and not anchors:
        return None
    figures = {**seconds, "anchors": anchors}
    return {
        "formats": formats,
        "main_events": main_events,
        "seconds": seconds,
        "anchors": anchors,
        "increments": increments,
        "rows": step_rows(formats, seconds, anchors),
        "ratios": ratio_rows(formats, seconds, anchors, increments, main_events),
        "targets": check_targets(figures, increments),
        "checks": checks,
    }


def step_headers(formats: Sequence[str]) -> list[str]:
    return ["events", "step", *map(column_label, formats), *(c for c, _ in ANCHOR_COLUMNS)]


def step_rows(
    formats: Sequence[str],
    seconds: Mapping[str, Mapping[int, Mapping[str, float]]],
    anchors: Mapping[int, Mapping[str, float]],
) -> list[list[Any]]:
    """[events, step, each format's wall s, each anchor's wall s] per size and step."""
    sizes = sorted({e for by_size in seconds.values() for e in by_size} | set(anchors))
    rows = []
    for events in sizes:
        for step in FORMAT_STEPS:
            cells: list[Any] = [events, step]
            cells += [seconds.get(fmt, {}).get(events, {}).get(step) for fmt in formats]
            for _, steps in ANCHOR_COLUMNS:
                anchor = steps.get(step)
                cells.append(anchors.get(events, {}).get(anchor) if anchor else None)
            if any(cell is not None for cell in cells[2:]):
                rows.append(cells)
    return rows


def _growth(
    values: Mapping[int, float | None], increments: Mapping[int, int], events: int, main: int
) -> float | None:
    """The same increment's cost at ``events`` over ``main``'s (None at ``main`` itself,
    or when the increments differ: a smaller size takes its own share)."""
    if events == main or increments.get(events) != increments.get(main):
        return None
    return ratio(values.get(events), values.get(main))


def ratio_rows(
    formats: Sequence[str],
    seconds: Mapping[str, Mapping[int, Mapping[str, float]]],
    anchors: Mapping[int, Mapping[str, float]],
    increments: Mapping[int, int],
    main_events: int,
) -> list[list[Any]]:
    """Per size, one row per format (RATIO_HEADERS) and one per incremental anchor with its
    own growth. Ratios as multiples, the share as a percentage; None where not measured."""
    rows: list[list[Any]] = []
    sizes = sorted({e for by_size in seconds.values() for e in by_size} | set(anchors))
    for events in sizes:
        base = anchors.get(events, {})
        for fmt in formats:
            steps = seconds.get(fmt, {}).get(events)
            if not steps:
                continue
            full, incremental, noop = (steps.get(s) for s in ("full", "incremental", "no-op"))
            share = (
                ratio(incremental - noop, full - noop)
                if None not in (full, incremental, noop)
                else None
            )
            rows.append(
                [
                    events,
                    column_label(fmt),
                    multiple(ratio(full, base.get("baseline"))),
                    multiple(ratio(full, base.get("duckdb-full"))),
                    None if share is None else f"{share:.1%}",
                    multiple(ratio(incremental, base.get(incremental_anchor(fmt)))),
                    multiple(ratio(incremental, base.get("duckdb-incremental"))),
                    multiple(
                        _growth(
                            {e: s.get("incremental") for e, s in seconds.get(fmt, {}).items()},
                            increments,
                            events,
                            main_events,
                        )
                    ),
                ]
            )
        for label, steps in ANCHOR_COLUMNS:
            anchor = steps["incremental"]
            if anchor not in base:
                continue
            values = {e: s.get(anchor) for e, s in anchors.items()}
            growth = _growth(values, increments, events, main_events)
            if growth is not None:
                rows.append([events, label, None, None, None, None, None, multiple(growth)])
    return rows


def render_anchor_section(section: Mapping[str, Any], markdown: bool) -> str:
    """The step table, the ratios, issue 74's targets and the anchors' check, as one
    block."""
    table = markdown_table if markdown else text_table
    formats = list(section["formats"])
    parts = [
        "Each step on every format beside the anchors (wall s; PySpark: the hand-written job, "
        "full over every file, incremental applying the new files to its state on parquet and "
        "on Delta; DuckDB: the same rules, full and incremental):",
        "",
        table(step_headers(formats), section["rows"]),
        "",
        "Ratios (incr: the incremental build; its baseline is the hand-written job on its "
        "file format; the last column: the same increment at this size over --events):",
        "",
        table(RATIO_HEADERS, section["ratios"]),
        "",
        table(TARGET_HEADERS, target_rows(section["targets"])),
    ]
    from workbench.bench.anchor_check import check_lines

    for events, check in sorted(section.get("checks", {}).items()):
        parts += ["", f"The anchors' rows at {events:,} events:"]
        parts += [("- " if markdown else "  ") + line for line in check_lines(check)]
    return "\n".join(parts)
