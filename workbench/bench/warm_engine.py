"""The warm engine's targets (issue 64), checked on a bench's formats side by side.

The `connect` column is the `local` target's build (gold on parquet) run by dbt's `connect`
target against one Spark Connect server (`cdc_tools.connect_server`), started once before
the timed steps; its first build, on a cold server JVM, is measured apart (`first build`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.bench.formats import DEMO_EVENTS, matching_size

WARM_FORMAT = "connect"
LOCAL_FORMAT = "parquet"
LARGE_EVENTS = 1_000_000


@dataclass(frozen=True)
class Limit:
    """`step` on `fmt` at the size `nominal_events` takes at most `seconds` of wall time."""

    label: str
    fmt: str
    nominal_events: int
    step: str
    seconds: float


SECOND_LIMITS: tuple[Limit, ...] = (
    Limit("connect demo-size full build <= 30 s", WARM_FORMAT, DEMO_EVENTS, "full", 30.0),
    Limit("connect demo-size incremental <= 20 s", WARM_FORMAT, DEMO_EVENTS, "incremental", 20.0),
    Limit("connect demo-size no-op <= 8 s", WARM_FORMAT, DEMO_EVENTS, "no-op", 8.0),
    Limit("connect floor <= 5 s", WARM_FORMAT, DEMO_EVENTS, "floor", 5.0),
)
LOCAL_NOOP_OVER_FLOOR = 1.3
FULL_OVER_BASELINE = 3.0
INCREMENTAL_SHARE = 0.10


def _check(label: str, measured: float | None, limit: float, shown: str) -> dict[str, Any]:
    return {
        "target": label,
        "measured": None if measured is None else round(measured, 3),
        "shown": "not measured" if measured is None else shown,
        "passed": None if measured is None else measured <= limit,
    }


def _floor(by_size: Mapping[int, Mapping[str, float]]) -> float | None:
    return next((steps["floor"] for steps in by_size.values() if "floor" in steps), None)


def warm_engine_checks(
    seconds: Mapping[str, Mapping[int, Mapping[str, float]]],
    baseline: Mapping[int, float],
) -> list[dict[str, Any]]:
    """Each target of issue 64 from ``seconds[format][events][step]`` (wall s) and the
    baseline's wall s by size: passed None where a figure was not measured."""
    checks = []
    for limit in SECOND_LIMITS:
        by_size = seconds.get(limit.fmt, {})
        if limit.step == "floor":  # one project of one model: whichever size ran it
            value = _floor(by_size)
        else:
            events = matching_size(sorted(by_size), limit.nominal_events)
            value = by_size.get(events, {}).get(limit.step) if events is not None else None
        checks.append(_check(limit.label, value, limit.seconds, f"{value} s"))
    local = seconds.get(LOCAL_FORMAT, {})
    events = matching_size(sorted(local), DEMO_EVENTS)
    noop = local.get(events, {}).get("no-op") if events is not None else None
    floor = _floor(local)
    ratio = noop / floor if noop is not None and floor else None
    label = f"local no-op <= {LOCAL_NOOP_OVER_FLOOR}x its floor"
    checks.append(_check(label, ratio, LOCAL_NOOP_OVER_FLOOR, f"{ratio or 0:.2f}x"))
    best_full, best_share, best = None, None, ""
    for fmt, by_size in seconds.items():
        events = matching_size(sorted(by_size), LARGE_EVENTS)
        steps = by_size.get(events, {}) if events is not None else {}
        base = baseline.get(events) if events is not None else None
        if not ({"full", "incremental", "no-op"} <= steps.keys() and base):
            continue
        full = steps["full"] / base
        share = (steps["incremental"] - steps["no-op"]) / max(steps["full"] - steps["no-op"], 1e-9)
        if best_full is None or full < best_full:
            best_full, best_share, best = full, share, fmt
    checks.append(
        _check(
            f"1M full <= {FULL_OVER_BASELINE}x the baseline"
            f"{' (the best target: ' + best + ')' if best else ''}",
            best_full,
            FULL_OVER_BASELINE,
            f"{best_full or 0:.2f}x",
        )
    )
    checks.append(
        _check(
            f"1M (incremental - no-op) <= {INCREMENTAL_SHARE:.0%} of (full - no-op)"
            f"{' (' + best + ')' if best else ''}",
            best_share,
            INCREMENTAL_SHARE,
            f"{(best_share or 0):.1%}",
        )
    )
    return checks


WARM_ENGINE_HEADERS = ("target (issue 64)", "measured", "result")


def warm_engine_rows(checks: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    return [
        [
            check["target"],
            check["shown"],
            "not measured" if check["passed"] is None else ("PASS" if check["passed"] else "FAIL"),
        ]
        for check in checks
    ]
