"""Planning: how many events each simulated source gets, in which files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from workbench.bench.settings import INITIAL_ROW_WEIGHTS, SNAPSHOT_SHARE


def split_events(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` counts that differ by at most one (larger first)."""
    if parts <= 0:
        raise ValueError("parts must be positive")
    if total < 0:
        raise ValueError("total must be >= 0")
    base, extra = divmod(total, parts)
    return [base + (1 if index < extra else 0) for index in range(parts)]


def split_weighted(total: int, weights: Mapping[str, int]) -> dict[str, int]:
    """``total`` split by integer weights; rounding leftovers go to the first names."""
    weight_sum = sum(weights.values())
    shares = {name: total * weight // weight_sum for name, weight in weights.items()}
    leftover = total - sum(shares.values())
    for name in list(shares)[:leftover]:
        shares[name] += 1
    return shares


def landing_format(flavour_index: int, wrapped: bool) -> str:
    """Alternate the two landing layouts so that each flavour and wrapper meets both."""
    return "kcat" if (flavour_index + int(wrapped)) % 2 else "value_lines"


@dataclass(frozen=True)
class SourcePlan:
    """One simulated source database and how many of its events land when."""

    index: int
    flavour: str
    wrapped: bool
    fmt: str
    events: int
    held_back: int

    @property
    def name(self) -> str:
        return f"BENCH{self.index}_{self.flavour.upper()}"

    @property
    def initial_events(self) -> int:
        return self.events - self.held_back

    @property
    def initial_rows(self) -> dict[str, int]:
        return split_weighted(round(self.events * SNAPSHOT_SHARE), INITIAL_ROW_WEIGHTS)


def plan_sources(events: int, flavours: Sequence[str], increment_events: int) -> list[SourcePlan]:
    """Split ``events`` over every flavour with and without the schema wrapper."""
    if not flavours:
        raise ValueError("at least one flavour is needed")
    if not 0 <= increment_events <= events:
        raise ValueError("the increment must be between 0 and the number of events")
    combos = [(i, flavour, wrapped) for i, flavour in enumerate(flavours) for wrapped in (0, 1)]
    totals = split_events(events, len(combos))
    held = split_events(increment_events, len(combos))
    return [
        SourcePlan(
            index=index,
            flavour=flavour,
            wrapped=bool(wrapped),
            fmt=landing_format(flavour_index, bool(wrapped)),
            events=total,
            held_back=held_back,
        )
        for index, ((flavour_index, flavour, wrapped), total, held_back) in enumerate(
            zip(combos, totals, held, strict=True)
        )
    ]


def parse_counts(text: str) -> list[int]:
    """``"100000,1_000_000"`` -> ``[100000, 1000000]``."""
    return [int(part.strip().replace("_", "")) for part in text.split(",") if part.strip()]


def scaling_increment(
    events: int, main_events: int, main_increment: int, increment_fraction: float
) -> int:
    """The increment of a ``--scaling`` size: the main scenario's above ``--events`` (the
    same increment on more loaded data), the size's own share below it (so that a small size,
    such as the demo's, is not all increment)."""
    if events >= main_events:
        return min(main_increment, events)
    return min(main_increment, round(events * increment_fraction))
