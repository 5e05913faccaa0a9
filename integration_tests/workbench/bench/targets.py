"""Issue 74's targets, checked on every bench's step table (workbench.bench.anchor_table).

Measured on `connect` (the warm engine, gold on parquet) and on `local` (the `parquet`
column), wall time:

- 1M full <= 3.0x the hand-written baseline on `connect`, <= 4.0x on `local`;
- 1M (incremental - no-op) <= 10 % of (full - no-op) on `connect`, and its incremental
  <= 3x the hand-written incremental baseline (on parquet, as gold on `connect` is);
- the same increment at 5M <= 1.25x its cost at 1M (`--scaling`), on `connect` and on
  `local`;
- demo size on `connect`: full <= 30 s, incremental <= 20 s, no-op <= 8 s.

Issue 64's two targets on the floor stay beside them (its others are the same as these).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.bench.formats import DEMO_EVENTS, matching_size, ratio

WARM = "connect"
LOCAL = "parquet"
LARGE_EVENTS = 1_000_000
SCALED_EVENTS = 5_000_000

Seconds = Mapping[str, Mapping[int, Mapping[str, float]]]
"""Wall seconds by column (a format, or `anchors`), size and step."""


@dataclass(frozen=True)
class Target:
    """``measure`` (a ratio or seconds from the step table, None where not measured) at
    most ``limit``; ``unit``: `x` (a multiple), `%` (a share) or `s`."""

    label: str
    limit: float
    unit: str
    measure: Callable[[Seconds, Mapping[int, int]], float | None]


def _at(seconds: Seconds, column: str, nominal: int, step: str) -> float | None:
    by_size = seconds.get(column, {})
    events = matching_size(sorted(by_size), nominal)
    return None if events is None else by_size[events].get(step)


def _anchor_at(seconds: Seconds, column: str, nominal: int, step: str) -> float | None:
    """An anchor's seconds at the size the column measured near ``nominal``."""
    events = matching_size(sorted(seconds.get(column, {})), nominal)
    return None if events is None else seconds.get("anchors", {}).get(events, {}).get(step)


def full_over_baseline(column: str) -> Callable[[Seconds, Mapping[int, int]], float | None]:
    return lambda s, _: ratio(
        _at(s, column, LARGE_EVENTS, "full"), _anchor_at(s, column, LARGE_EVENTS, "baseline")
    )


def incremental_share(column: str) -> Callable[[Seconds, Mapping[int, int]], float | None]:
    def measure(s: Seconds, _: Mapping[int, int]) -> float | None:
        full, incremental, noop = (
            _at(s, column, LARGE_EVENTS, step) for step in ("full", "incremental", "no-op")
        )
        if full is None or incremental is None or noop is None:
            return None
        return ratio(incremental - noop, full - noop)

    return measure


def incremental_over_baseline(
    column: str, anchor: str = "baseline-incremental"
) -> Callable[[Seconds, Mapping[int, int]], float | None]:
    return lambda s, _: ratio(
        _at(s, column, LARGE_EVENTS, "incremental"), _anchor_at(s, column, LARGE_EVENTS, anchor)
    )


def increment_growth(column: str) -> Callable[[Seconds, Mapping[int, int]], float | None]:
    """The incremental build at 5M over 1M, when both took the same increment."""

    def measure(s: Seconds, increments: Mapping[int, int]) -> float | None:
        sizes = sorted(s.get(column, {}))
        large, scaled = matching_size(sizes, LARGE_EVENTS), matching_size(sizes, SCALED_EVENTS)
        if large is None or scaled is None or increments.get(large) != increments.get(scaled):
            return None
        by_size = s[column]
        return ratio(by_size[scaled].get("incremental"), by_size[large].get("incremental"))

    return measure


def seconds_at(
    column: str, nominal: int, step: str
) -> Callable[[Seconds, Mapping[int, int]], float | None]:
    return lambda s, _: _at(s, column, nominal, step)


def floor_seconds(column: str) -> Callable[[Seconds, Mapping[int, int]], float | None]:
    """The floor where it ran (one project of one model: whichever size ran it)."""
    return lambda s, _: next(
        (steps["floor"] for steps in s.get(column, {}).values() if "floor" in steps), None
    )


def noop_over_floor(column: str) -> Callable[[Seconds, Mapping[int, int]], float | None]:
    return lambda s, i: ratio(_at(s, column, DEMO_EVENTS, "no-op"), floor_seconds(column)(s, i))


TARGETS: tuple[Target, ...] = (
    Target("1M full <= 3.0x the baseline on connect", 3.0, "x", full_over_baseline(WARM)),
    Target("1M full <= 4.0x the baseline on local", 4.0, "x", full_over_baseline(LOCAL)),
    Target(
        "1M (incremental - no-op) <= 10% of (full - no-op) on connect",
        0.10,
        "%",
        incremental_share(WARM),
    ),
    Target(
        "1M incremental <= 3.0x the incremental baseline on connect",
        3.0,
        "x",
        incremental_over_baseline(WARM),
    ),
    Target("5M increment <= 1.25x the 1M increment on connect", 1.25, "x", increment_growth(WARM)),
    Target("5M increment <= 1.25x the 1M increment on local", 1.25, "x", increment_growth(LOCAL)),
    Target("demo-size full <= 30 s on connect", 30.0, "s", seconds_at(WARM, DEMO_EVENTS, "full")),
    Target(
        "demo-size incremental <= 20 s on connect",
        20.0,
        "s",
        seconds_at(WARM, DEMO_EVENTS, "incremental"),
    ),
    Target("demo-size no-op <= 8 s on connect", 8.0, "s", seconds_at(WARM, DEMO_EVENTS, "no-op")),
    Target("(issue 64) floor <= 5 s on connect", 5.0, "s", floor_seconds(WARM)),
    Target(
        "(issue 64) demo-size no-op <= 1.3x its floor on local",
        1.3,
        "x",
        noop_over_floor(LOCAL),
    ),
)


def shown(value: float | None, unit: str) -> str:
    if value is None:
        return "not measured"
    if unit == "%":
        return f"{value:.1%}"
    if unit == "s":
        return f"{value:.1f} s"
    return f"{value:.2f}x"


def check_targets(
    seconds: Seconds, increments: Mapping[int, int], targets: Sequence[Target] = TARGETS
) -> list[dict[str, Any]]:
    """Each target with its measured value and PASS/FAIL (``passed`` None: not measured)."""
    checks = []
    for target in targets:
        value = target.measure(seconds, increments)
        checks.append(
            {
                "target": target.label,
                "limit": target.limit,
                "measured": None if value is None else round(value, 4),
                "shown": shown(value, target.unit),
                "passed": None if value is None else value <= target.limit,
            }
        )
    return checks


TARGET_HEADERS = ("target (issue 74, wall time)", "measured", "result")


def target_rows(checks: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    return [
        [
            check["target"],
            check["shown"],
            "not measured" if check["passed"] is None else ("PASS" if check["passed"] else "FAIL"),
        ]
        for check in checks
    ]
