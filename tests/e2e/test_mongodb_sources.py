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
import re
from datetime import datetime, timezone
from decimal import Decimal

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import typed
from tests.e2e.stream import Part, batch_lander, register
from workbench.simulator.mongodb import MongoSimResult, simulate_mongodb
from workbench.simulator.mongodb_config import MongoSimConfig

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


def _document_changes_then_lose_their_bookkeeping(dbt_project) -> list[dict]:  # type: ignore[no-untyped-def]
    """Before the no-op build: the count of the model's rows, then its table of latest
    versions as a run killed after its first load's post-hook leaves it (complete through
    that load only): the next run must make it good."""
    counted = _document_changes(dbt_project)
    model = f"{dbt_project.layer('silver')}.int_cdc__document_changes"
    [first] = dbt_project.sql(f"select cast(min(_loaded_at) as string) as t from {model}")
    latest = f"{model}__cdc_latest"
    dbt_project.sql(f"drop table {latest}")
    dbt_project.sql(
        f"create table {latest} using parquet as select _cdc_source_id, _cdc_key, "
        "max_by(named_struct('document', _cdc_after, 'is_partial', _cdc_is_partial), "
        "_cdc_sort_key) as latest_version, max(_cdc_sort_key) as latest_sort_key, "
        f"max(_cdc_message_sort_key) as latest_message_sort_key from {model} "
        f"where _loaded_at <= timestamp'{first['t']}' group by _cdc_source_id, _cdc_key"
    )
    dbt_project.sql(
        f"alter table {latest} set tblproperties ('cdc.read_through' = '{first['t']}', "
        "'cdc.compacted_rows' = '0')"
    )
    return counted


EPOCH = "1970-01-01 00:00:00"


def _latest_versions_forget_their_read_through(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """Before the second batch: the table of latest versions keeps its rows but knows
    nothing for sure (read-through 1970), as after a run killed between its writes: the
    second batch's lookup must read the model's rows too, and its post-hook make it good."""
    latest = f"{dbt_project.layer('silver')}.int_cdc__document_changes__cdc_latest"
    dbt_project.sql(f"alter table {latest} set tblproperties ('cdc.read_through' = '{EPOCH}')")


register(
    Part(
        PART,
        land=batch_lander(_simulations),
        databases=tuple(database for database, *_ in SOURCES),
        before={
            "batch1": _latest_versions_forget_their_read_through,
            "noop": _document_changes_then_lose_their_bookkeeping,
        },
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


def _properties(dbt_project, table: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(f"show tblproperties {dbt_project.layer('silver')}.{table}")
    return {str(r["key"]): str(r["value"]) for r in rows}


def _latest_versions(dbt_project, relation: str, columns: str) -> set[tuple]:  # type: ignore[no-untyped-def]
    """(source, key, document, partial, sort key, message sort key) of every key."""
    rows = dbt_project.sql(
        f"select _cdc_source_id, _cdc_key, max_by({columns[0]}, {columns[1]}) as v, "
        f"max({columns[1]}) as s, max({columns[2]}) as m from {relation} "
        "group by _cdc_source_id, _cdc_key"
    )
    return {
        (r["_cdc_source_id"], r["_cdc_key"], r["v"]["document"], r["v"]["is_partial"])
        + (r["s"], r["m"])
        for r in rows
    }


def _assert_latest_versions_are_the_models(dbt_project) -> int:  # type: ignore[no-untyped-def]
    """The table of latest versions holds, per key, the model's newest version, and is
    complete through the model's read-through. Returns its number of rows."""
    model = f"{dbt_project.layer('silver')}.int_cdc__document_changes"
    kept = _latest_versions(
        dbt_project, f"{model}__cdc_latest",
        ("latest_version", "latest_sort_key", "latest_message_sort_key"),
    )  # fmt: skip
    whole = _latest_versions(
        dbt_project, f"(select *, named_struct('document', _cdc_after, 'is_partial', "
        f"_cdc_is_partial) as version from {model})",
        ("version", "_cdc_sort_key", "_cdc_message_sort_key"),
    )  # fmt: skip
    assert whole, "the model holds no document (a test without teeth)"
    assert kept == whole
    through = _properties(dbt_project, "int_cdc__document_changes")["cdc.read_through"]
    assert (
        _properties(dbt_project, "int_cdc__document_changes__cdc_latest")["cdc.read_through"]
        == through
    )
    [n] = dbt_project.sql(f"select count(*) as n from {model}__cdc_latest")
    return int(n["n"])  # type: ignore[call-overload]


@pytest.mark.stream("batch1")
def test_a_run_looks_up_the_latest_versions_not_the_whole_history(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """The second batch found the documents it patched in the table of latest versions
    (a row per key and run), and read the model itself only for the loads that table had
    not taken in (here all: its read-through was set back before the build; a `_loaded_at`
    literal, which parquet statistics use to skip older files) and for row-image families'
    key changes; its post-hook made the table whole again: every key's newest version."""
    model = f"{dbt_project.layer('silver')}.int_cdc__document_changes"
    kept = _assert_latest_versions_are_the_models(dbt_project)
    [versions] = dbt_project.sql(f"select count(*) as n from {model}")
    assert kept < versions["n"], "a row per key and run, fewer than the model's versions"
    compiled = (
        dbt_project.target_path
        / "compiled/cdc_lakehouse/models/silver/int_cdc__document_changes.sql"
    ).read_text()
    reads = re.findall(rf"from {re.escape(model)}\b(?!__)(?:\s+as \w+)?\s+(\w+[^\n]*)", compiled)
    assert f"from {model}__cdc_latest" in compiled
    assert f"where _loaded_at > timestamp'{EPOCH}'" in reads, (
        "a table of latest versions that knows nothing for sure is read with the model's rows"
    )
    allowed = ("where _loaded_at > timestamp'", "left semi join key_changes")
    for following in reads:
        assert following.startswith(allowed), following


@pytest.mark.stream("noop")
def test_a_run_makes_good_the_latest_versions_a_killed_run_left(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """Before the no-op build, the table of latest versions was set back to the first
    load (a run killed before its post-hook): the no-op build's post-hook added the rest."""
    _assert_latest_versions_are_the_models(dbt_project)


@pytest.mark.stream("full_refresh")
def test_a_full_refresh_rebuilds_the_latest_versions(dbt_project) -> None:  # type: ignore[no-untyped-def]
    model = f"{dbt_project.layer('silver')}.int_cdc__document_changes"
    kept = _assert_latest_versions_are_the_models(dbt_project)
    [keys] = dbt_project.sql(f"select count(distinct _cdc_source_id, _cdc_key) as n from {model}")
    assert kept == keys["n"], "a full build keeps one row per key"
