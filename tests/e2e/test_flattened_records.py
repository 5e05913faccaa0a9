"""End to end: flattened Debezium records (ExtractNewRecordState) reach gold, in every
`delete.tombstone.handling.mode`.

Five simulated SQL Server databases, each written through Debezium's transform as
workbench.simulator.flattened applies it (no truncate: the transform drops them):

| database | mode (2.x: delete.handling.mode, drop.tombstones) | fields | headers | schemas | as |
| --- | --- | --- | --- | --- | --- |
| FLAT_RWT | rewrite-with-tombstone | connector, db, schema, table, positions | op, ts | on | kcat |
| FLAT_RW | rewrite (`rewrite`, `true`) | op, connector, ts_ms, source.ts_ms | | off | sink files |
| FLAT_DEL | delete (`none`, `true`) | op | | on | kcat |
| FLAT_TMB | tombstone (`drop`, `false`) | none | | on | kcat |
| FLAT_DROP | drop | connector | op | off | kcat |

(fields: `add.fields`; headers: `add.headers`; ts: source.ts_ms; sink files: values only, no
Kafka key). A schemaless record's numbers decode by its connector's encodings: the schemaless
sources add `connector`. Headers carry the prefix `h__` (`add.headers.prefix`, var
cdc_flattened_header_prefix): FLAT_DROP's records are known flattened by their `h__op` header
alone, FLAT_RWT's op and source time are read from headers.

FLAT_TMB's and FLAT_DEL's topics are declared flattened (var cdc_flattened_topics): their
deletes are tombstones only, and FLAT_TMB's rows carry no added field. FLAT_RW's tables come
from their topics (`<server>.<db>.<schema>.<table>`), its keys from the contracts.

After each batch and a `--full-refresh`: FLAT_RWT and FLAT_RW equal the simulator's oracle
(compare_database: typed gold, `_cdc_op`, captured_rows); the others' `captured_rows` equal an
independent replay of their records (upsert by Kafka key, a tombstone or a `__deleted` row
deletes; FLAT_DROP keeps its deleted rows: Debezium dropped their deletes). FLAT_DEL's and
FLAT_TMB's tables are in a schema of their own (`flat`), bound to no typed contract. Nothing
is quarantined.

The sources are this module's part of the shared stream (tests/e2e/stream.py).
"""

from __future__ import annotations

import functools
import json
from collections import Counter

import pytest

from tests.conftest import DbtProject
from tests.e2e.stream import BATCHES, Part, register, stream_databases
from workbench.oracle_check import GoldReader, compare_database
from workbench.simulator import SimConfig, SimResult, simulate, write_batch
from workbench.simulator.debezium import Message
from workbench.simulator.flattened import LEGACY_MODES, flatten

pytestmark = pytest.mark.spark

PART = "flattened"
POSITIONS = ("change_lsn", "commit_lsn", "event_serial_no")
HEADER_PREFIX = "h__"
# database: (mode, add.fields, add.headers, schemas, landing format)
SOURCES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], bool, str]] = {
    "FLAT_RWT": ("rewrite-with-tombstone",
                 ("connector", "db", "schema", "table", *POSITIONS), ("op", "source.ts_ms"),
                 True, "kcat"),
    "FLAT_RW": (LEGACY_MODES[("rewrite", True)],
                ("op", "connector", "ts_ms", "source.ts_ms"), (), False, "value_lines"),
    "FLAT_DEL": (LEGACY_MODES[("none", True)], ("op",), (), True, "kcat"),
    "FLAT_TMB": (LEGACY_MODES[("drop", False)], (), (), True, "kcat"),
    "FLAT_DROP": ("drop", ("connector",), ("op",), False, "kcat"),
}  # fmt: skip
WITH_OP = ("FLAT_RWT", "FLAT_RW")
REPLAYED = ("FLAT_DEL", "FLAT_TMB", "FLAT_DROP")
# the sources whose deletes carry no row (tombstones): their tables are in a schema of their
# own, bound to no typed contract, so that their deletes (each one a carry-over candidate)
# leave the typed gold models' delta path at batch1 as the other parts make it
UNBOUND = ("FLAT_DEL", "FLAT_TMB")


def _server(database: str) -> str:
    return database.lower()


@functools.cache
def _simulated() -> dict[str, SimResult]:
    return {
        database: simulate(
            SimConfig(
                seed=700 + index,
                flavour="sqlserver",
                database=database,
                server=_server(database),
                schema="flat" if database in UNBOUND else None,
                transactions=30,
                batches=2,
                truncate_probability=0.0,
                schemas_enable=schemas,
                pk_change_probability=0.1,
                transaction_metadata=False,
            )
        )  # fmt: skip
        for index, (database, (_, _, _, schemas, _)) in enumerate(SOURCES.items())
    }


@functools.cache
def _records() -> dict[str, list[list[Message]]]:
    """{database: the flattened records of each batch}, at consecutive offsets."""
    records: dict[str, list[list[Message]]] = {}
    for database, result in _simulated().items():
        mode, add_fields, add_headers, _, _ = SOURCES[database]
        offsets: dict[tuple[str, int], int] = {}
        records[database] = [
            flatten(batch, mode, add_fields, offsets=offsets, add_headers=add_headers,
                    header_prefix=HEADER_PREFIX)
            for batch in result.batches
        ]  # fmt: skip
    return records


def _land(step: str, folder) -> None:  # type: ignore[no-untyped-def]
    if step in BATCHES:
        for database, batches in _records().items():
            write_batch(
                batches[BATCHES[step]], folder / database, BATCHES[step], SOURCES[database][4]
            )


register(
    Part(
        PART,
        land=_land,
        databases=tuple(SOURCES),
        vars={
            "cdc_flattened_topics": ["^flat_tmb[.]", "^flat_del[.]"],
            "cdc_flattened_header_prefix": HEADER_PREFIX,
        },
    )
)


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


def _unwrapped(value: dict) -> dict:
    """A JsonConverter value's payload (schemas on), or the value itself."""
    return value["payload"] if "schema" in value and "payload" in value else value


def _replayed(database: str, batch: int) -> Counter[str]:
    """The rows an independent replay of the database's records leaves, as JSON texts."""
    rows: dict[tuple[str, str], dict] = {}
    for records in _records()[database][: batch + 1]:
        for record in records:
            place = (
                record.topic,
                json.dumps(_unwrapped(json.loads(str(record.key))), sort_keys=True),
            )
            if record.value is None:
                rows.pop(place, None)
                continue
            value = _unwrapped(json.loads(record.value))
            if value.get("__deleted") == "true":
                rows.pop(place, None)
                continue
            rows[place] = {k: v for k, v in value.items() if not k.startswith("__")}
    return Counter(json.dumps(row, sort_keys=True) for row in rows.values())


def _differences(dbt_project: DbtProject, batch: int) -> list[str]:
    failures: list[str] = []
    reader = GoldReader(dbt_project.spark)
    results = _simulated()
    for database in WITH_OP:
        outcome = compare_database(
            dbt_project.spark, dbt_project.layer("gold"), database,
            results[database].expected[batch], result=results[database], batch=batch,
            databases=stream_databases(), reader=reader,
            source_times=True,
        )  # fmt: skip
        assert sum(outcome.rows.values()) > 0, database
        failures += [f"{database}: {d}" for d in outcome.differences]
    for database in REPLAYED:
        gold = Counter(
            json.dumps(json.loads(str(row["_cdc_row_json_raw"])), sort_keys=True)
            for row in dbt_project.sql(
                f"select _cdc_row_json_raw from {dbt_project.layer('gold')}.captured_rows "
                f"where _cdc_source_id like '{database.lower()}.%'"
            )
        )
        wanted = _replayed(database, batch)
        assert sum(wanted.values()) > 0, database
        failures += [f"{database}: missing {row}" for row in wanted - gold]
        failures += [f"{database}: not in the replay {row}" for row in gold - wanted]
    return failures


def test_the_records_are_what_the_transform_writes() -> None:
    """Guards: each mode's deletes have the shape the module claims; no envelope is left."""
    for database, batches in _records().items():
        records = [record for batch in batches for record in batch]
        bodies = [json.loads(r.value) for r in records if r.value is not None]
        bodies = [b.get("payload", b) if "schema" in b else b for b in bodies]
        assert not any({"before", "after", "source"} & set(b) for b in bodies), database
        deleted = sum(b.get("__deleted") == "true" for b in bodies)
        nulls = sum(r.value is None for r in records)
        mode = SOURCES[database][0]
        assert (deleted > 0) == mode.startswith("rewrite"), (database, deleted)
        assert (nulls > 0) == (mode in ("tombstone", "rewrite-with-tombstone", "delete")), database
        assert all(("__op" in b) == ("op" in SOURCES[database][1]) for b in bodies), database
        headed = [dict(r.headers) for r in records if r.value is not None]
        wanted = {HEADER_PREFIX + name.replace(".", "_") for name in SOURCES[database][2]}
        assert all(set(h) == wanted and None not in h.values() for h in headed), database


@pytest.mark.stream("batch0")
def test_flattened_records_reach_gold(dbt_project) -> None:  # type: ignore[no-untyped-def]
    failures = _differences(dbt_project, 0)
    assert not failures, "gold differs:\n" + "\n".join(failures[:60])
    [quarantined] = dbt_project.sql(
        f"select count(*) as n from {dbt_project.layer('silver')}.cdc_quarantine "
        f"where _source_file like '{dbt_project.landed_under(PART)}'"
    )
    assert quarantined["n"] == 0


@pytest.mark.stream("batch1")
def test_the_second_batch_applies_incrementally(dbt_project) -> None:  # type: ignore[no-untyped-def]
    failures = _differences(dbt_project, 1)
    assert not failures, "gold differs:\n" + "\n".join(failures[:60])


@pytest.mark.stream("full_refresh")
def test_a_full_refresh_gives_the_source_state(dbt_project) -> None:  # type: ignore[no-untyped-def]
    failures = _differences(dbt_project, 1)
    assert not failures, "gold differs:\n" + "\n".join(failures[:60])
