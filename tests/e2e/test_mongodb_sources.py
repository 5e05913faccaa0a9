"""End to end: simulated MongoDB sources -> landing files -> dbt build -> gold equals the
source's documents.

Four simulated MongoDB sources share one landing folder and one `dbt build`: both Debezium
generations (oplog-era `patch`/`filter` with `$set`/`$unset`, dotted paths, array indexes,
MongoDB 5+ `$v: 2` diffs and replacements; change streams with full documents or with
`updateDescription` only), with and without the schema wrapper, both landing formats,
redelivered messages (some land a batch late), and two captures that start mid-stream, so
that patches arrive for documents whose insert was never landed. After a first batch, an
incremental second batch, a no-op run and a `--full-refresh`, `captured_rows` must hold
exactly the documents a correct consumer of the landed messages holds (the simulator's
oracle, kept by executing the operations, never by applying the patches), flagged
`_cdc_is_partial` exactly where the oracle says the document is partial, and the typed
gold model `shop_customers` (a YAML contract with dotted paths) must hold their values.

The sources are this module's part of the shared stream (tests/e2e/stream.py): their files
land under `mongodb/` of the stream's landing folder, and every count is scoped to them.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime, timezone
from decimal import Decimal

import pytest

from cdc_tools.simulator.mongodb import MongoSimResult, simulate_mongodb
from cdc_tools.simulator.mongodb_config import MongoSimConfig
from tests.conftest import DbtProject
from tests.corpus.captured_state import typed
from tests.e2e.stream import Part, batch_lander, register

pytestmark = pytest.mark.spark

# (database, generation, schemas_enable, full_document, landing format, capture_starts_after)
SOURCES: list[tuple[str, str, bool, bool, str, int]] = [
    ("shop", "oplog", False, True, "value_lines", 0),
    ("shop_eu", "change_streams", True, False, "kcat", 0),
    ("shop_us", "oplog", True, True, "kcat", 30),
    ("shop_asia", "change_streams", False, False, "kcat", 30),
]


@functools.cache
def _simulations() -> list[tuple[MongoSimResult, str]]:
    results = []
    for index, (database, generation, wrapped, full_document, fmt, skipped) in enumerate(SOURCES):
        config = MongoSimConfig(
            seed=40 + index,
            server=f"mongo{index}",
            database=database,
            generation=generation,
            schemas_enable=wrapped,
            full_document=full_document,
            redeliver_fraction=0.15,
            v2_patch_fraction=0.3,
            capture_starts_after=skipped,
            transactions=40,
            batches=2,
        )
        results.append((simulate_mongodb(config), fmt))
    return results


@pytest.fixture(scope="session")
def simulations() -> list[tuple[MongoSimResult, str]]:
    return _simulations()


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


PART = "mongodb"


def _document_changes(dbt_project) -> list[dict]:  # type: ignore[no-untyped-def]
    return dbt_project.sql(
        f"select count(*) as n from {dbt_project.layer('silver')}.int_cdc__document_changes"
    )


register(
    Part(
        PART,
        land=batch_lander(_simulations),
        databases=tuple(database for database, *_ in SOURCES),
        before={"noop": _document_changes},
    )
)


def _captured(  # type: ignore[no-untyped-def]
    dbt_project, namespaces: list[str]
) -> dict[str, tuple[dict[str, object], set[str]]]:
    """{namespace: (documents by _cdc_key, keys flagged partial)}, read in one query."""
    listed = ", ".join(f"'{namespace}'" for namespace in namespaces)
    rows = dbt_project.sql(
        f"select _cdc_source_id, _cdc_key, _cdc_row_json, _cdc_is_partial "
        f"from {dbt_project.layer('gold')}.captured_rows where _cdc_source_id in ({listed})"
    )
    captured = {}
    for namespace in namespaces:
        own = [row for row in rows if row["_cdc_source_id"] == namespace]
        documents = {row["_cdc_key"]: typed(json.loads(row["_cdc_row_json"])) for row in own}
        assert len(documents) == len(own), f"{namespace}: a key appears twice"
        partial = {row["_cdc_key"] for row in own if row["_cdc_is_partial"]}
        captured[namespace] = (documents, partial)
    return captured


def _assert_documents_match(dbt_project, simulations, batch: int) -> None:  # type: ignore[no-untyped-def]
    failures = []
    captured = _captured(
        dbt_project, [n for result, _ in simulations for n in result.namespaces.values()]
    )
    for result, _ in simulations:
        visible = result.expected_visible[batch]
        partial = result.expected_partial[batch]
        for namespace in result.namespaces.values():
            wanted = {
                key: typed(json.loads(doc)) for key, doc in visible.get(namespace, {}).items()
            }
            actual, flagged = captured[namespace]
            assert wanted, f"{namespace}: the oracle holds no document (a test without teeth)"
            for key in sorted(set(wanted) | set(actual)):
                if actual.get(key) != wanted.get(key):
                    failures.append(
                        f"{namespace} {key}: gold {actual.get(key)} != source {wanted.get(key)}"
                    )
            if flagged != set(partial.get(namespace, {})):
                failures.append(
                    f"{namespace}: partial {sorted(flagged)} != "
                    f"{sorted(partial.get(namespace, {}))}"
                )
    assert not failures, "captured_rows differs from the sources:\n" + "\n".join(failures[:20])


def _plain(value: object) -> object:
    """A document value unwrapped as the typed contract reads it (as text)."""
    if isinstance(value, dict) and len(value) == 1:
        [(wrapper, inner)] = value.items()
        if wrapper == "$date":
            moment = datetime.fromtimestamp(int(inner) / 1000, tz=timezone.utc)  # type: ignore[arg-type]
            return moment.replace(tzinfo=None)
        if wrapper in ("$oid", "$numberLong", "$numberDecimal", "$numberInt", "$numberDouble"):
            return inner
    return value


def _typed_customer(document: dict[str, object]) -> dict[str, object]:
    """The oracle's view of one `shop_customers` row, computed from the document."""
    address = document.get("address") if isinstance(document.get("address"), dict) else {}
    tags = document.get("tags")
    balance = _plain(document.get("balance"))
    visits = _plain(document.get("visits"))
    return {
        "id": str(_plain(document["_id"])),
        "name": document.get("name"),
        "age": document.get("age"),
        "balance": None if balance is None else Decimal(str(balance)).quantize(Decimal("0.01")),
        "vip": document.get("vip"),
        "since": _plain(document.get("since")),
        "address_city": address.get("city"),  # type: ignore[union-attr]
        "first_tag": tags[0] if isinstance(tags, list) and tags else None,
        "visits": None if visits is None else int(visits),  # type: ignore[arg-type]
    }


def _assert_typed_customers_match(dbt_project, simulations, batch: int) -> None:  # type: ignore[no-untyped-def]
    columns = ", ".join(_typed_customer({"_id": 1}))
    databases = ", ".join(f"'{result.config.database}'" for result, _ in simulations)
    every_row = dbt_project.sql(
        f"select _cdc_source_db, {columns} from {dbt_project.layer('gold')}.shop_customers "
        f"where _cdc_source_db in ({databases})"
    )
    for result, _ in simulations:
        database = result.config.database
        namespace = result.namespaces["customers"]
        rows = [
            {column: value for column, value in row.items() if column != "_cdc_source_db"}
            for row in every_row
            if row["_cdc_source_db"] == database
        ]
        actual = {row["id"]: row for row in rows}
        wanted = {}
        for document in result.expected_visible[batch].get(namespace, {}).values():
            row = _typed_customer(json.loads(document))
            wanted[row["id"]] = row
        assert actual == wanted, f"shop_customers of {database} differs from the source"


@pytest.mark.stream("batch0")
def test_first_batch_folds_every_document(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _assert_documents_match(dbt_project, simulations, 0)
    _assert_typed_customers_match(dbt_project, simulations, 0)


@pytest.mark.stream("batch0")
def test_every_message_is_accounted_for(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """Every message reaches silver; only patches onto never-seen documents are reported,
    as partial documents, by the sources whose capture started mid-stream."""
    sent = sum(len(result.batches[0]) for result, _ in simulations)
    mine = f"where _source_file like '{dbt_project.landed_under(PART)}'"
    [count] = dbt_project.sql(
        f"select count(*) as n from {dbt_project.layer('silver')}.stg_cdc__messages {mine}"
    )
    assert count["n"] == sent
    reported = dbt_project.sql(
        f"select _cdc_source_id, reason_code from {dbt_project.layer('silver')}.cdc_quarantine "
        f"{mine}"
    )
    assert {row["reason_code"] for row in reported} == {"partial_document"}
    late_capture = {
        r.namespaces[c]
        for r, _ in simulations
        if r.config.capture_starts_after
        for c in r.namespaces
    }
    assert {row["_cdc_source_id"] for row in reported} <= late_capture


@pytest.mark.stream("batch1")
def test_second_batch_folds_patches_onto_stored_documents(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _assert_documents_match(dbt_project, simulations, 1)
    _assert_typed_customers_match(dbt_project, simulations, 1)


@pytest.mark.stream("noop")
def test_a_run_without_new_files_changes_nothing(dbt_project, simulations, stream) -> None:  # type: ignore[no-untyped-def]
    assert _document_changes(dbt_project) == stream.before(PART, "noop")
    _assert_documents_match(dbt_project, simulations, 1)


@pytest.mark.stream("full_refresh")
def test_full_refresh_gives_what_the_incremental_runs_gave(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _assert_documents_match(dbt_project, simulations, 1)
    _assert_typed_customers_match(dbt_project, simulations, 1)
