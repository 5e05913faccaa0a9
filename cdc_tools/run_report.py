"""`make report`: the run history as one static HTML page of plots.

Reads `cdc_run_history` (one row per load and source) and `cdc_run_durations` (one row per
build and layer, the package's on-run-end hook) from the warehouse and draws four plots as
inline SVG, with no script or style fetched from anywhere: the lag per source over loads,
the messages each load brought and quarantined, the quarantine by reason, and each layer's
seconds per build. A small inline script marks each plot `data-rendered` once the browser
has laid it out (tests/e2e/test_run_report.py opens the page in headless Chromium).

    python -m cdc_tools.run_report [--schema cdc] [--out target/report/index.html]
"""

from __future__ import annotations

import argparse
import html
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cdc_tools.local_spark import REPO_ROOT

Sql = Callable[[str], list[dict]]
WIDTH, HEIGHT, MARGIN = 720, 260, 48
# the legend's column, right of the plot: bars and lines never cover it
LEGEND = 220
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


@dataclass
class Plot:
    """One plot: its title, what its axes say, and its series of (x label, y) points."""

    title: str
    y_label: str
    series: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    bars: bool = False
    x_unit: str = "loads"

    @property
    def points(self) -> int:
        return sum(len(points) for points in self.series.values())


def _rows(sql: Sql, query: str) -> list[dict]:
    try:
        return sql(query)
    except Exception as error:  # a table not built yet: the page says so
        if "TABLE_OR_VIEW_NOT_FOUND" in str(error) or "not found" in str(error).lower():
            return []
        raise


def collect(sql: Sql, silver: str) -> list[Plot]:
    """The four plots of the run history in schema `silver`."""
    history = _rows(
        sql,
        "select date_format(_loaded_at, 'yyyy-MM-dd HH:mm:ss') as load, source_name, "
        "messages_loaded, messages_quarantined, quarantined_by_reason, lag_p95_seconds "
        f"from {silver}.cdc_run_history order by _loaded_at, source_name",
    )
    lag = Plot("Lag per source (p95, source commit time to load)", "seconds")
    messages = Plot("Messages per load", "messages", bars=True)
    reasons = Plot("Quarantine by reason", "messages", bars=True)
    loaded: dict[str, float] = {}
    quarantined: dict[str, float] = {}
    by_reason: dict[str, float] = {}
    for row in history:
        load = str(row["load"])
        if row["lag_p95_seconds"] is not None:
            lag.series.setdefault(str(row["source_name"]), []).append(
                (load, float(row["lag_p95_seconds"]))
            )
        loaded[load] = loaded.get(load, 0) + int(row["messages_loaded"])
        quarantined[load] = quarantined.get(load, 0) + int(row["messages_quarantined"])
        for reason, count in (row["quarantined_by_reason"] or {}).items():
            by_reason[reason] = by_reason.get(reason, 0) + int(count)
    messages.series = {
        "loaded": list(loaded.items()),
        "quarantined": list(quarantined.items()),
    }
    reasons.series = {"quarantined": sorted(by_reason.items())} if by_reason else {}
    durations = Plot("Seconds per layer, per build", "seconds", bars=True, x_unit="builds")
    for row in _rows(
        sql,
        "select date_format(run_started_at, 'yyyy-MM-dd HH:mm:ss') as run, layer, "
        f"sum(seconds) as seconds from {silver}.cdc_run_durations "
        "group by run_started_at, layer order by run_started_at, layer",
    ):
        durations.series.setdefault(str(row["layer"]), []).append(
            (str(row["run"]), float(row["seconds"]))
        )
    return [lag, messages, reasons, durations]


def _svg(plot: Plot) -> str:
    labels: list[str] = []
    for points in plot.series.values():
        labels += [label for label, _ in points if label not in labels]
    top = max((y for points in plot.series.values() for _, y in points), default=0.0) or 1.0
    inner_w, inner_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN
    slot = inner_w / max(len(labels), 1)
    shapes: list[str] = []
    series = list(plot.series.items())
    for index, (name, points) in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        coords = []
        for label, y in points:
            x = MARGIN + slot * labels.index(label)
            height = inner_h * y / top
            tip = html.escape(f"{name} · {label}: {y:g}")
            if plot.bars:
                width = slot * 0.8 / len(series)
                shapes.append(
                    f'<rect class="point" x="{x + slot * 0.1 + width * index:.1f}" '
                    f'y="{MARGIN + inner_h - height:.1f}" width="{width:.1f}" '
                    f'height="{height:.1f}" fill="{colour}"><title>{tip}</title></rect>'
                )
            else:
                cx, cy = x + slot / 2, MARGIN + inner_h - height
                coords.append(f"{cx:.1f},{cy:.1f}")
                shapes.append(
                    f'<circle class="point" cx="{cx:.1f}" cy="{cy:.1f}" r="3" fill="{colour}">'
                    f"<title>{tip}</title></circle>"
                )
        if coords:
            shapes.append(f'<polyline points="{" ".join(coords)}" fill="none" stroke="{colour}"/>')
    legend = "".join(
        f'<text x="{WIDTH - MARGIN + 12}" y="{MARGIN + 14 * i}" '
        f'fill="{COLOURS[i % len(COLOURS)]}" font-size="11">{html.escape(name)}</text>'
        for i, (name, _) in enumerate(series[:12])
    )
    axes = (
        f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - MARGIN}" '
        f'y2="{HEIGHT - MARGIN}" stroke="#333"/>'
        f'<line x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{HEIGHT - MARGIN}" stroke="#333"/>'
        f'<text x="4" y="{MARGIN - 8}" font-size="11">{html.escape(plot.y_label)} '
        f"(max {top:g})</text>"
        f'<text x="{MARGIN}" y="{HEIGHT - 8}" font-size="11">{len(labels)} '
        f"{plot.x_unit if labels else 'no data'}</text>"
    )
    return (
        f'<svg class="plot" data-points="{plot.points}" width="{WIDTH + LEGEND}" '
        f'height="{HEIGHT}" '
        f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{html.escape(plot.title)}">'
        f"{axes}{''.join(shapes)}{legend}</svg>"
    )


# marks each plot once the browser laid it out with its points (the page's own check)
_SCRIPT = """
for (const svg of document.querySelectorAll('svg.plot')) {
  const box = svg.getBoundingClientRect();
  const drawn = svg.querySelectorAll('.point').length;
  svg.dataset.rendered = String(box.width > 0 && box.height > 0 && drawn > 0);
  svg.dataset.drawn = String(drawn);
}
"""


def render(plots: Sequence[Plot], title: str = "CDC run history") -> str:
    """The page: a section per plot, its SVG inline."""
    sections = "".join(
        f"<section><h2>{html.escape(plot.title)}</h2>{_svg(plot)}</section>" for plot in plots
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        "<style>body{font-family:sans-serif;margin:2em}section{margin-bottom:2em}</style>"
        f"</head><body><h1>{html.escape(title)}</h1>{sections}"
        f"<script>{_SCRIPT}</script></body></html>"
    )


def write_report(sql: Sql, silver: str, out: Path) -> Path:
    """Collect the plots of schema `silver` and write the page to `out`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(collect(sql, silver)), encoding="utf-8")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schema", default=os.environ.get("CDC_SCHEMA", "cdc"))
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "target" / "report" / "index.html")
    args = parser.parse_args(argv)
    from cdc_tools.local_spark import get_local_spark, query_rows

    out = write_report(query_rows(get_local_spark()), f"{args.schema}_silver", args.out)
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
