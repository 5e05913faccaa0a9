"""The cdc_history materialization's two halves against a Python oracle.

A type-2 history kept batch by batch (macros/materializations/cdc_history/cdc_history.sql) stores
the versions resolved at its last compaction (`_cdc_history_sql`, stored=true) and
appends later changes to a delta partition; its view (`_cdc_history_view_sql`) resolves
the keys the delta touches, and closes the stored versions a new truncate ends, when it
is read. Here random change logs (late arrivals, copies, deletes, truncates before and
after the compaction) are split into a compacted load and two delta loads exactly as the
materialization writes them, and the view must equal the history this module computes in
Python from the whole log, and the one-pass resolution of the whole log (`_cdc_history_sql`,
the query of the `cdc_history` macro, here with the carry-over). Two sources send Debezium's
unavailable-value placeholder (PostgreSQL TOAST) in two of its forms: a version takes the
value of its key's version before, a create takes nothing, and a placeholder nothing
resolves reads as null. One dbt compile renders the queries; the rest is Spark on tiny
tables.
"""

from __future__ import annotations

import base64
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
PLACEHOLDER = "__debezium_unavailable_value"
# the forms a string column can hold (decision 0024): the string, base64 of its bytes (bytea)
PLACEHOLDER_FORMS = (PLACEHOLDER, base64.b64encode(PLACEHOLDER.encode()).decode())
# the sources that send placeholders; their changes reach the compacted load in order (a
# late change before a compacted version it would have filled is a documented limit), or
# are all in the delta
TOAST_SOURCES = ("s_toast", "s_all_delta")


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
        elif source == "s_toast":
            load = 0 if position <= 20 else 1 if position <= 30 else 2
        else:
            load = rng.choice((0, 0, 0, 0, 1, 2))
        value = f"{source}-{position}"
        if source in TOAST_SOURCES and rng.random() < (0.1 if op == "c" else 0.5):
            value = rng.choice(PLACEHOLDER_FORMS)
        changes.append(Change(source, key, position, op, value, load, 0))
        if rng.random() < 0.15:  # a copy, delivered again in the same or a later load
            changes.append(Change(source, key, position, op, value, rng.randint(load, 2), 1))
    return changes


def _expected(changes: list[Change]) -> set[tuple[object, ...]]:
    """The history rows (source, key, value, op, position, valid_from, valid_to,
    is_current, loaded_at) of the whole log."""
    rows: set[tuple[object, ...]] = set()
    truncates: dict[tuple[str, int], dt.datetime] = {}
    first_copy: dict[tuple[str, int, int], Change] = {}
    for change in sorted(changes, key=lambda c: c.sort_key):
        if change.op == "t":
            truncates.setdefault((change.source, change.position), change.ts)
        else:
            assert change.key is not None
            first_copy.setdefault((change.source, change.key, change.position), change)
    by_key: dict[tuple[str, int], list[Change]] = {}
    for change in first_copy.values():
        assert change.key is not None
        by_key.setdefault((change.source, change.key), []).append(change)
    for (source, key), versions in by_key.items():
        versions.sort(key=lambda c: c.sort_key)
        value: str | None = None
        for index, version in enumerate(versions):
            # the carry-over: a placeholder takes the value of the version before, a create
            # keeps its own; one nothing resolves reads as null
            if not index or version.op == "c" or version.value not in PLACEHOLDER_FORMS:
                value = version.value
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
                    None if value in PLACEHOLDER_FORMS else value,
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
            [*(f"s{i}" for i in range(12)), "s_all_delta", "s_truncates", "s_toast"]
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
    toasted = [c for c in changes if c.value in PLACEHOLDER_FORMS]
    assert {c.value for c in toasted} == set(PLACEHOLDER_FORMS), "both forms"
    assert any(c.op == "c" for c in toasted), "a create with a placeholder (read as null)"
    assert any(c.source == "s_toast" and c.load > 0 and c.op != "c" for c in toasted), (
        "a delta placeholder filled from the compacted load"
    )

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
        # the materialization's carry spec (_cdc_history_columns) of a string column `v`
        carry = (
            "{% set carry = _cdc_carry_spec([{'name': 'v', 'type': 'string'}], "
            "['_cdc_source_id', 'id'], [], {}) %}"
        )
        inline = carry + SPLIT.join(
            [
                "{{ _cdc_history_stored_columns(['id'], ['v']) | join(', ') }}",
                '{{ _cdc_history_sql("' + compacted_load + '", ["id"], ["v"], stored=true, '
                "carry=carry) }}",
                "{{ _cdc_history_view_sql('" + db + ".history', '" + db + ".history_state', "
                "['id'], ['v'], carry) }}",
                "{{ _cdc_history_sql('" + db + ".changes', ['id'], ['v'], carry=carry) }}",
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
