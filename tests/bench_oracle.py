"""The rows the bench's anchors must hold, from the simulated sources (not from any engine).

The bench's landing (workbench.bench.generation) is simulated source by source; replaying
each source's messages in the order it emitted them (`workbench.oracle_check.replay`, the
reference `compare_database` holds gold's `captured_rows` to) gives every key's last change
and row image: the rows gold holds, and so the rows every anchor must hold.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from workbench.bench.generation import generate, source_batches
from workbench.bench.planning import SourcePlan, plan_sources
from workbench.oracle_check import SourceRow, replay
from workbench.simulator import TABLES

Expected = dict[tuple[str, str, str, str], SourceRow]
"""(db, schema, table, key) in lower case -> the key's last change, live keys only."""


@dataclass(frozen=True)
class Landing:
    """A small bench landing: its files, the held-back files, and the rows expected
    before and after the increment."""

    landing: Path
    increment: Path
    everything: Path
    before: Expected
    after: Expected
    events: int
    held_back: int


def _expected(messages: Sequence[Any]) -> Expected:
    expected: Expected = {}
    for source, rows in replay(SimpleNamespace(batches=[list(messages)])).items():
        db, schema, table = source.split(".")
        for row in rows.values():
            if row.deleted:
                continue
            image = {column.lower(): value for column, value in row.image.items()}
            key = "|".join(str(image[column]) for column in TABLES[table].key)
            expected[(db, schema, table, key)] = row
    return expected


def make_landing(
    root: Path, events: int = 3_000, increment: int = 300, batch_events: int = 500
) -> Landing:
    """A bench landing of ``events`` (the last ``increment`` held back) under ``root``:
    ``landing/``, ``increment/`` and ``everything/`` (both, as the landing holds them after
    the increment lands)."""
    plans: list[SourcePlan] = plan_sources(events, ["oracle", "sqlserver", "db2"], increment)
    stats = generate(plans, root / "landing", root / "increment", batch_events)
    before: list[Any] = []
    after: list[Any] = []
    for plan in plans:
        messages = [m for batch in source_batches(plan, batch_events) for m in batch]
        before += messages[: plan.initial_events]
        after += messages
    shutil.copytree(root / "landing", root / "everything")
    shutil.copytree(root / "increment", root / "everything", dirs_exist_ok=True)
    return Landing(
        root / "landing",
        root / "increment",
        root / "everything",
        _expected(before),
        _expected(after),
        stats.events,
        stats.held_back,
    )


def _matches(text: object, value: object) -> bool:
    """A row image's value as an anchor holds it (text) against the message's JSON value."""
    if value is None or text is None:
        return value is None and text is None
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, int):
        return text == str(value)
    if isinstance(value, float):
        return float(str(text)) == value
    if isinstance(value, str):
        return text == value
    return json.loads(str(text)) == value


def differences(
    rows: Iterable[Mapping[str, Any]], expected: Expected, limit: int = 20
) -> list[str]:
    """What an anchor's state (rows of STATE_COLUMNS, the image as a dict) holds other than
    ``expected``: missing or extra keys, another op, another image; truncate markers aside."""
    found: list[str] = []
    seen: set[tuple[str, str, str, str]] = set()
    for row in rows:
        if row["op"] == "t":
            continue
        key = (
            str(row["source_db"]).lower(),
            str(row["source_schema"]).lower(),
            str(row["source_table"]).lower(),
            str(row["key"]),
        )
        if key in seen:
            found.append(f"{key}: twice")
        seen.add(key)
        want = expected.get(key)
        if want is None:
            found.append(f"{key}: not in the source")
            continue
        if not want.op_matches(row["op"]):
            found.append(f"{key}: op {row['op']}, source {want.op}")
        image = dict(row["image"])
        if set(image) != set(want.image) or not all(
            _matches(image[column], value) for column, value in want.image.items()
        ):
            found.append(f"{key}: image {image}, source {dict(want.image)}")
    found += [f"{key}: missing" for key in sorted(set(expected) - seen)]
    return found[:limit]


def state_rows(relation: str, attach: Mapping[str, Path] | None = None) -> list[dict[str, Any]]:
    """The rows of a DuckDB relation of STATE_COLUMNS (workbench.bench.anchor_check's
    `AnchorState.relation`), read with DuckDB; ``attach``: alias -> database file."""
    import duckdb

    con = duckdb.connect()
    for alias, path in (attach or {}).items():
        con.execute(f"attach '{path}' as {alias} (read_only)")
    cursor = con.execute(f"select * from {relation}")
    names = [column[0] for column in cursor.description]
    rows = [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]
    con.close()
    return rows
