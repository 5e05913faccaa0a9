"""The cdc_history materialization's two halves against a Python oracle.

A type-2 history kept batch by batch (macros/materializations/cdc_history/cdc_history.sql) stores
the versions resolved at its last compaction (`_cdc_history_sql`, stored=true) and
appends later changes to a delta partition; its view (`_cdc_history_view_sql`) resolves
the keys the delta touches, and closes the stored versions a new truncate ends, when it
is read. Here random change logs (late arrivals, copies, deletes, truncates before and
after the compaction) are split into a compacted load and two delta loads exactly as the
materialization writes them, and the view must equal the history this module computes in
Python from the whole log, and the one-pass resolution of the whole log (`_cdc_history_sql`,
the query of the `cdc_history` macro). Copies of a change count once, as the copy with the
greatest sort key (a change resolved again upstream, int_cdc__carried_changes, wins). One dbt
compile renders the queries; the rest is Spark on tiny tables.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

import pytest

pytestmark = pytest.mark.spark

LOADS = (
    dt.datetime(2026, 1, 1, 0, 0, 1),
    dt.datetime(2026, 1, 1, 0, 0, 2),
    dt.datetime(2026, 1, 1, 0, 0, 3),
)
BASE_TS = dt.datetime(2025, 6, 1)
SPLIT = "-- history test: next query --"


@dataclass(frozen=True)
class Change:
    source: str
    key: int | None  # None: a truncate
    position: int
    op: str
    value: str
    load: int  # index into LOADS
    copy: int

    @property
    def sort_key(self) -> str:
        # as the pipeline's: the position, then the copy's arrival
        return f"{self.position:06d}-{self.load}{self.copy}"

    @property
    def ts(self) -> dt.datetime:
        return BASE_TS + dt.timedelta(seconds=self.position)


# (key, position, op, load) of a source whose truncates meet keys the delta leaves alone:
# a delta truncate closing two compacted versions, a late truncate between two compacted
# changes of a key, one before a compacted truncate that had closed a version (it closes
# it earlier), one after such a truncate (it changes nothing)
TRUNCATES_ONLY = [
    (1, 1, "c", 0), (2, 2, "c", 0), (None, 3, "t", 1),
    (3, 4, "c", 0), (3, 6, "u", 0), (None, 5, "t", 2),
    (4, 7, "c", 0), (None, 9, "t", 0), (None, 8, "t", 1),
    (5, 10, "c", 0), (None, 11, "t", 0), (None, 12, "t", 1),
]  # fmt: skip


def _scenario(source: str, rng: random.Random) -> list[Change]:
    if source == "s_truncates":
        return [
            Change(source, key, position, op, f"{source}-{position}", load, 0)
            for key, position, op, load in TRUNCATES_ONLY
        ]
    changes: list[Change] = []
    for position in range(1, 41):
        if rng.random() < 0.1:
            key, op = None, "t"
        else:
            key, op = rng.randint(1, 10), rng.choice("rcuud")
        if source == "s_all_delta":
            load = rng.choice((1, 2))
        else:
            load = rng.choice((0, 0, 0, 0, 1, 2))
        value = f"{source}-{position}"
        changes.append(Change(source, key, position, op, value, load, 0))
        if rng.random() < 0.15:  # a copy, delivered again in the same or a later load
            changes.append(Change(source, key, position, op, value, rng.randint(load, 2), 1))
    return changes


def _expected(changes: list[Change]) -> set[tuple[object, ...]]:
    """The history rows (source, key, value, op, position, valid_from, valid_to,
    is_current, loaded_at) of the whole log."""
    rows: set[tuple[object, ...]] = set()
    truncates: dict[tuple[str, int], dt.datetime] = {}
    last_copy: dict[tuple[str, int, int], Change] = {}
    for change in sorted(changes, key=lambda c: c.sort_key):
        if change.op == "t":
            truncates.setdefault((change.source, change.position), change.ts)
        else:
            assert change.key is not None
            last_copy[(change.source, change.key, change.position)] = change
    by_key: dict[tuple[str, int], list[Change]] = {}
    for change in last_copy.values():
        assert change.key is not None
        by_key.setdefault((change.source, change.key), []).append(change)
    for (source, key), versions in by_key.items():
        versions.sort(key=lambda c: c.sort_key)
        for index, version in enumerate(versions):
            following = versions[index + 1] if index + 1 < len(versions) else None
            closing = [
                position
                for (truncated_source, position) in truncates
                if truncated_source == source
                and position > version.position
                and (following is None or position < following.position)
            ]
            if version.op == "d":
                continue
            if closing:
                valid_to: dt.datetime | None = truncates[(source, min(closing))]
            else:
                valid_to = following.ts if following else None
            rows.add(
                (
                    source,
                    key,
                    version.value,
                    version.op,
                    f"{version.position:06d}",
                    version.ts,
                    valid_to,
                    following is None and not closing,
                    LOADS[version.load],
                )
            )
    return rows


def _values_sql(changes: list[Change]) -> str:
    rows = []
    for c in changes:
        key = "cast(null as int)" if c.key is None else str(c.key)
        rows.append(
            f"('{c.source}', {key}, '{c.value}', '{c.op}', '{c.position:06d}', '{c.sort_key}', "
            f"timestamp'{c.ts}', 'db', timestamp'{LOADS[c.load]}', cast(null as string))"
        )
    return ",\n".join(rows)


def test_the_view_of_a_history_with_a_delta_equals_the_whole_history(dbt_project) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(20261128)
    changes = [
        change
        for index, source in enumerate(
            [*(f"s{i}" for i in range(12)), "s_all_delta", "s_truncates"]
        )
        for change in _scenario(source, rng if index else random.Random(7))
    ]
    # guards: the faults this is about are in the data
    assert any(c.op == "t" and c.load > 0 for c in changes), "a truncate in the delta"
    assert any(c.op == "t" and c.load == 0 for c in changes), "a truncate compacted"
    assert any(c.copy for c in changes), "copies"
    late = [
        c
        for c in changes
        if c.load > 0
        and any(o.source == c.source and o.position > c.position and o.load == 0 for o in changes)
    ]
    assert late, "events arriving after newer ones were compacted"
    assert any(
        c.copy and c.load > o.load
        for c in changes
        for o in changes
        if not o.copy and (o.source, o.key, o.position) == (c.source, c.key, c.position)
    ), "a copy loaded after the first (it wins)"

    spark = dbt_project.spark
    db = f"{dbt_project.schema}_history"
    spark.sql(f"drop database if exists {db} cascade")  # type: ignore[attr-defined]
    spark.sql(f"create database {db}")  # type: ignore[attr-defined]
    try:
        spark.sql(  # type: ignore[attr-defined]
            f"create table {db}.changes using parquet as select * from values "
            f"{_values_sql(changes)} as t(_cdc_source_id, id, v, _cdc_op, _cdc_position, "
            "_cdc_sort_key, _cdc_source_ts, _cdc_source_db, _loaded_at, _cdc_error_reason)"
        )
        compacted_load = f"(select * from {db}.changes where _loaded_at <= timestamp'{LOADS[0]}')"
        inline = SPLIT.join(
            [
                "{{ _cdc_history_stored_columns(['id'], ['v']) | join(', ') }}",
                '{{ _cdc_history_sql("' + compacted_load + '", ["id"], ["v"], stored=true) }}',
                "{{ _cdc_history_view_sql('" + db + ".history', '" + db + ".history_state', "
                "['id'], ['v']) }}",
                "{{ _cdc_history_sql('" + db + ".changes', ['id'], ['v']) }}",
            ]
        )
        compiled = dbt_project.run("compile", "--inline", inline).result.results[0].node
        columns, stored_sql, view_sql, whole_sql = compiled.compiled_code.split(SPLIT)
        columns = columns.strip()
        spark.sql(  # type: ignore[attr-defined]
            f"create table {db}.history_state using parquet partitioned by (cdc_bucket) as "
            f"select {columns}, 0 as cdc_bucket from ({stored_sql}) as resolved"
        )
        delta_columns = ", ".join(
            "null" if c in ("valid_to", "is_current", "next_position", "closing_position") else c
            for c in (name.strip() for name in columns.split(","))
        )
        for load in LOADS[1:]:  # one append per incremental run, as the materialization's
            spark.sql(  # type: ignore[attr-defined]
                f"insert into {db}.history_state partition (cdc_bucket = -2) "
                f"select {delta_columns} from {db}.changes where _loaded_at = timestamp'{load}'"
            )
        spark.sql(view_sql)  # type: ignore[attr-defined]
        shown = (
            "_cdc_source_id, id, v, _cdc_op, _cdc_valid_from_position, valid_from, valid_to, "
            "is_current, _loaded_at"
        )
        view_rows = {
            tuple(r)
            for r in spark.sql(f"select {shown} from {db}.history").collect()  # type: ignore[attr-defined]
        }
        whole_rows = {
            tuple(r)
            for r in spark.sql(f"select {shown} from ({whole_sql})").collect()  # type: ignore[attr-defined]
        }
        [count] = spark.sql(f"select count(*) from {db}.history").collect()  # type: ignore[attr-defined]
    finally:
        spark.sql(f"drop database if exists {db} cascade")  # type: ignore[attr-defined]

    expected = _expected(changes)
    assert count[0] == len(view_rows), "one row per version"
    for name, rows in (("the whole log", whole_rows), ("the view", view_rows)):
        assert rows == expected, (name, sorted(rows - expected)[:5], sorted(expected - rows)[:5])
    # a version is current exactly when nothing closed it
    assert all((row[6] is None) == row[7] for row in view_rows)
