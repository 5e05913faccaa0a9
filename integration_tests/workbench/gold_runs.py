"""The run record of a gold model's state table, as its table properties hold it (decision 0023).

`cdc_current_state` records its runs in the state's properties (`<model>__cdc_state`), where a
run log table (`<model>__cdc_runs`) held them before: `cdc.run.staged` (the `loaded_through` of a
run that staged its partitions and did not record them applied, empty otherwise),
`cdc.run.kind` (that run's kind, else the last applied one's), `cdc.run.loaded_through` (the
watermark) and `cdc.run.count.<kind>` (how many runs of each kind since the state was built;
`resumed`: staged runs a later run applied).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

COUNT_PREFIX = "cdc.run.count."


@dataclass(frozen=True)
class RunRecord:
    """What a state's properties say of its runs."""

    status: str  # "staged" or "applied"
    kind: str | None
    staged: str | None  # the `loaded_through` of the staged run
    loaded_through: str | None
    counts: Mapping[str, int]

    @property
    def kinds(self) -> set[str]:
        """The kinds of the runs applied since the state was built (`resumed` is no kind)."""
        return {kind for kind, n in self.counts.items() if n > 0 and kind != "resumed"}

    def last(self) -> dict[str, str | None]:
        """The last run as the run log's last entry read: {status, kind}."""
        return {"status": self.status, "kind": self.kind}


def run_record(properties: Mapping[str, str]) -> RunRecord:
    """The run record in a state table's properties (a dict of `show tblproperties`)."""
    return RunRecord(
        status="staged" if properties.get("cdc.run.staged") else "applied",
        kind=properties.get("cdc.run.kind"),
        staged=properties.get("cdc.run.staged") or None,
        loaded_through=properties.get("cdc.run.loaded_through"),
        counts={
            name.removeprefix(COUNT_PREFIX): int(value)
            for name, value in properties.items()
            if name.startswith(COUNT_PREFIX)
        },
    )


def properties_of(rows: Iterable[Any]) -> dict[str, str]:
    """`show tblproperties` rows (dicts or Spark rows with `key` and `value`) as a dict."""
    return {str(row["key"]): str(row["value"]) for row in rows}
