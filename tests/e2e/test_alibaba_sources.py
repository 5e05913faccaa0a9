"""End to end: simulated Alibaba DataWorks, Canal, Maxwell and Oracle GoldenGate sources ->
landing files -> dbt build -> `captured_rows` equals the source database.

Six simulated sources (workbench.simulator.alibaba_sim) share one landing folder and one
`dbt build`: DataWorks real-time sync with split updates (`UPDATE_BEFOR` + `UPDATE_AFTER`
sharing a sequenceId), DataWorks with single-message updates (the `UPDATE_BEFORE` spelling
option, a lower-case `dbType`, heartbeats with `systemTime`), Canal flat messages,
Maxwell's daemon with its default options (no `primary_key_columns`: kcat `-J` records
whose Kafka key `{"database", "table", "pk.id"}` names the row after the change), and two
OGG JSON formatter streams with Extract's compressed updates and deletes (the key and
changed columns only; primary-key updates as one `U` naming both keys), one of them with
the formatter's `<COL>_isMissing` flags on every column. Each workload has a table of
every value type that gains a column mid-stream (`items`), a composite-key table
(`accounts`), a table without a primary key (`events`), primary-key changes, truncates
(but for Maxwell, which writes nothing for one), and redelivered messages (at-least-once;
some land a batch late). Their table names (items, accounts, events) do not collide with
the tables the project declares keys for (customers, orders, order_lines), so every key
comes from the messages (DataWorks `primaryKey` or `#alibaba_rds_row_id#`, Canal
`pkNames`, Maxwell's Kafka key, OGG `primary_keys`). A second part (`ogg_docs`) lands a
hand-written OGG stream of the formatter's documented shapes (tests/fixtures/ogg/).

After each batch, an incremental second batch, a no-op run and a `--full-refresh`,
`captured_rows` must hold exactly the simulator's oracle (kept by executing the statements
on the source's rows, never by replaying the messages): the raw last row image of every
live key, compared strictly (1, 1.0, "1" and true all differ).

The sources are this module's part of the shared stream (tests/e2e/stream.py): their files
land under `alibaba/` of the stream's landing folder, and every count is scoped to them.
"""

from __future__ import annotations

import functools
import json
import shutil
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import typed
from tests.e2e.stream import Part, batch_lander, register
from workbench.simulator.alibaba_sim import (
    AlibabaSimResult,
    ExpectedTable,
    simulate_canal,
    simulate_dataworks,
    simulate_maxwell,
    simulate_ogg,
)
from workbench.simulator.alibaba_source import ROW_ID, AlibabaSimConfig
from workbench.simulator.dataworks import DataWorksOptions

pytestmark = pytest.mark.spark

_TRANSACTIONS = 25
DATABASES = ("dw_split", "dw_single", "canal_db", "maxwell_db", "ogg_db", "ogg_flags")
_REDELIVER = 0.1
# the envelope (stg_cdc__messages._cdc_envelope) of each simulated format
ENVELOPES = {
    "dataworks": "alibaba_dataworks",
    "canal": "canal",
    "maxwell": "maxwell",
    "ogg": "ogg",
}


def _config(seed: int, database: str, **options: float) -> AlibabaSimConfig:
    return AlibabaSimConfig(
        seed=seed,
        database=database,
        batches=2,
        transactions=_TRANSACTIONS,
        redeliver_fraction=_REDELIVER,
        **options,  # type: ignore[arg-type]
    )


def _maxwell_key_changes(result: AlibabaSimResult, batch: int) -> list[tuple[dict, dict]]:
    """(Kafka key, value) of each Maxwell update whose `old` carries the previous `id` (a
    DDL message's Kafka key is a bare UUID, a row's a JSON object)."""
    values = [(m.key, json.loads(str(m.value))) for m in result.batches[batch]]
    return [
        (json.loads(str(k)), v)
        for k, v in values
        if v["type"] == "update" and "id" in v.get("old", {})
    ]


def _ogg_images(result: AlibabaSimResult, op_type: str) -> list[dict]:
    values = [json.loads(m.value) for m in result.messages if m.value]
    return [v for v in values if v["op_type"] == op_type and v["primary_keys"]]


@functools.cache
def _simulations() -> list[tuple[AlibabaSimResult, str]]:
    """(result, landing format) per source; each lands in the folder named by its database."""
    split = simulate_dataworks(
        _config(63, DATABASES[0]), DataWorksOptions(update_mode="split", before_op="UPDATE_BEFOR")
    )
    single = simulate_dataworks(
        _config(64, DATABASES[1]),
        DataWorksOptions(
            update_mode="single",
            before_op="UPDATE_BEFORE",
            db_type="mysql",
            heartbeat_system_time=True,
        ),
    )
    canal = simulate_canal(_config(82, DATABASES[2]))
    # Maxwell writes nothing for a TRUNCATE; more key changes than the default workload
    maxwell = simulate_maxwell(
        _config(91, DATABASES[3], truncate_probability=0.0, pk_change_probability=0.25)
    )
    ogg = simulate_ogg(_config(95, DATABASES[4], pk_change_probability=0.3))
    ogg_flags = simulate_ogg(
        _config(92, DATABASES[5], pk_change_probability=0.3), missing_flags=True
    )
    results = [
        (split, "value_lines"),
        (single, "kcat"),
        (canal, "value_lines"),
        (maxwell, "kcat"),
        (ogg, "value_lines"),
        (ogg_flags, "kcat"),
    ]
    for result, _ in results:
        # guards: the workload really exercises what this test claims to cover
        assert sum(len(r) for r in result.redelivered) > 0, result.config.database
        assert set(result.expected[-1]) == {
            f"{result.config.database}.{t}" for t in ("items", "accounts", "events")
        }
    assert any(
        json.loads(m.value)["payload"]["op"] == "UPDATE_BEFOR" for m in split.messages if m.value
    )
    assert any(
        json.loads(m.value)["payload"]["op"] == "UPDATE_AFTER"
        and json.loads(m.value)["payload"]["before"] is not None
        for m in single.messages
        if m.value
    )
    # Maxwell: key-changing updates in both batches, whose `old` carries the previous id
    # while the Kafka key (no primary_key_columns) names the new one; a late redelivery
    for batch in (0, 1):
        changes = _maxwell_key_changes(maxwell, batch)
        assert len(changes) >= 3, (batch, len(changes))
        assert all(k["pk.id"] == v["data"]["id"] != v["old"]["id"] for k, v in changes)
        assert not any("primary_key_columns" in v for _, v in changes)
    assert maxwell.redelivered[1]
    for result in (ogg, ogg_flags):
        updates = _ogg_images(result, "U")
        # compressed updates (a non-key column left out), primary-key updates, compressed
        # deletes (the key alone), and the flags on every column of the second stream
        carried = [
            {
                k: v
                for k, v in u["after"].items()
                if not (k.endswith("_isMissing") or u["after"].get(f"{k}_isMissing"))
            }
            for u in updates
        ]
        assert sum(len(after) < 5 for after in carried) > 5, result.config.database
        assert (
            sum(u["before"]["id"] != u["after"]["id"] for u in updates if "id" in u["after"]) >= 2
        )
        if result is ogg:
            deletes = _ogg_images(result, "D")
            assert deletes and all(set(d["before"]) == set(d["primary_keys"]) for d in deletes)
        else:
            assert all(
                f"{k}_isMissing" in u["after"]
                for u in updates
                for k in u["after"]
                if not k.endswith("_isMissing")
            )
    return results


@pytest.fixture(scope="session")
def simulations() -> list[tuple[AlibabaSimResult, str]]:
    return _simulations()


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


PART = "alibaba"


def _own_captured_rows(dbt_project) -> list[dict]:  # type: ignore[no-untyped-def]
    """captured_rows of this module's sources, in key order."""
    tables = ", ".join(
        f"lower('{table}')" for result, _ in _simulations() for table in result.expected[-1]
    )
    rows = dbt_project.sql(
        f"select _cdc_source_id, _cdc_key, _cdc_row_json, _cdc_position "
        f"from {dbt_project.layer('gold')}.captured_rows where _cdc_source_id in ({tables})"
    )
    return sorted(rows, key=lambda r: (r["_cdc_source_id"], r["_cdc_key"]))


register(
    Part(
        PART,
        land=batch_lander(_simulations),
        databases=DATABASES,
        before={"noop": _own_captured_rows},
    )
)

# A hand-written OGG stream of the JSON formatter's documented shapes (tests/fixtures/ogg/):
# compressed updates and deletes, `<COL>_isMissing` flags, a primary-key update, and at
# batch1 a copy of batch0's update delivered again (late), and an update of a row whose
# insert predates the stream (EMP_ID 7: partial). Its own part: schema `HR`.
OGG_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ogg"
OGG_PART = "ogg_docs"
OGG_EXPECTED = {
    "batch0": {
        1: {"EMP_ID": 1, "NAME": "Anne", "SALARY": 100, "HIRED": "2020-01-01 00:00:00"},
        2: {"EMP_ID": 2, "NAME": "Bob", "SALARY": 200, "HIRED": "2021-01-01 00:00:00"},
        3: {"EMP_ID": 3, "NAME": "Cy", "SALARY": 300, "HIRED": "2022-01-01 00:00:00"},
        7: {"EMP_ID": 7, "NAME": "Zed"},
    },
    "batch1": {
        1: {"EMP_ID": 1, "NAME": "Anne", "SALARY": 150, "HIRED": "2020-01-01 00:00:00"},
        20: {"EMP_ID": 20, "NAME": "Robert", "SALARY": None, "HIRED": "2021-01-01 00:00:00"},
        7: {"EMP_ID": 7, "NAME": "Zed"},
    },
}


def _land_ogg_fixture(step: str, folder: Path) -> None:
    if step in OGG_EXPECTED:
        folder.mkdir(parents=True, exist_ok=True)
        name = f"compressed_images.{step}.json"
        shutil.copyfile(OGG_FIXTURES / name, folder / name)


register(Part(OGG_PART, land=_land_ogg_fixture, databases=("hr",)))


# ------------------------------------------------------------------ reading gold
def _gold(dbt_project, tables: list[str]) -> dict[str, list[tuple[str, dict]]]:  # type: ignore[no-untyped-def]
    """{`db.table`: [(_cdc_key, row image as sent)]}, every captured row of each of `tables`
    (_cdc_source_id: the DataWorks records carry no schemaName, Canal and Maxwell none at
    all, so lower(db.table)), read in one query. The oracle holds raw values (DATE as epoch
    ms): `_cdc_row_json` decodes DataWorks DATEs."""
    by_source_id: dict[str, list[tuple[str, dict]]] = {table.lower(): [] for table in tables}
    listed = ", ".join(f"'{source_id}'" for source_id in by_source_id)
    rows = dbt_project.sql(
        f"select _cdc_source_id, _cdc_key, _cdc_row_json_raw "
        f"from {dbt_project.layer('gold')}.captured_rows where _cdc_source_id in ({listed})"
    )
    for row in rows:
        image = json.loads(str(row["_cdc_row_json_raw"]))
        by_source_id[str(row["_cdc_source_id"])].append((str(row["_cdc_key"]), image))
    return {table: by_source_id[table.lower()] for table in tables}


def _row_key(row: dict, key_columns: list[str]) -> str:
    """A row's key as typed JSON text (so 1 and "1" are different keys)."""
    return json.dumps([typed(row.get(column, "<missing>")) for column in key_columns])


def _row_text(row: dict) -> str:
    return json.dumps(typed(row), sort_keys=True, ensure_ascii=False)


def _without_nulls(row: dict) -> dict:
    return {column: value for column, value in row.items() if value is not None}


def _compare_table(  # type: ignore[no-untyped-def]
    dbt_project,
    table: str,
    expected: ExpectedTable,
    compressed: bool = False,
    gold: list[tuple[str, dict]] | None = None,
) -> list[str]:
    """Differences between gold and the oracle. `compressed` (OGG): a column the stream
    never carried for a row (one added to the table after the row was last written whole,
    and never changed since) is absent from gold where the source holds it as null, so
    null columns are left out on both sides; a column a compressed update set to null
    still differs from the value it replaced. `gold`: the table's rows, read beforehand."""
    if gold is None:
        gold = _gold(dbt_project, [table])[table]
    if compressed:
        gold = [(key, _without_nulls(row)) for key, row in gold]
        expected = ExpectedTable(
            expected.key_columns, expected.columns, [_without_nulls(r) for r in expected.rows]
        )
    failures = []
    if len({key for key, _ in gold}) != len(gold):
        failures.append(f"{table}: a _cdc_key appears twice")
    if expected.key_columns is None:
        # Canal / Maxwell without a primary key: the format carries no row identity, so the table
        # is a multiset: gold holds each distinct row as many times as the source does
        # (int_cdc__keyless_changes), one _cdc_key per copy.
        wanted = Counter(_row_text(row) for row in expected.rows)
        actual = Counter(_row_text(row) for _, row in gold)
        for text, count in sorted((wanted - actual).items()):
            failures.append(f"{table}: {count} copies missing from gold {text}")
        for text, count in sorted((actual - wanted).items()):
            failures.append(f"{table}: {count} copies not in the source {text}")
        return failures
    wanted_by_key = {_row_key(r, expected.key_columns): typed(r) for r in expected.rows}
    assert len(wanted_by_key) == len(expected.rows), f"{table}: oracle key twice"
    actual_by_key: dict[str, object] = {}
    for _, row in gold:
        key = _row_key(row, expected.key_columns)
        if key in actual_by_key:
            failures.append(f"{table}: key {key} twice in gold")
        actual_by_key[key] = typed(row)
    for key in sorted(set(wanted_by_key) | set(actual_by_key)):
        if actual_by_key.get(key) != wanted_by_key.get(key):
            failures.append(
                f"{table} {key}: gold {actual_by_key.get(key)} != source {wanted_by_key.get(key)}"
            )
    return failures


def _assert_gold_matches(dbt_project, simulations, batch: int) -> None:  # type: ignore[no-untyped-def]
    failures = []
    gold = _gold(dbt_project, [t for result, _ in simulations for t in result.expected[batch]])
    for result, _ in simulations:
        for table, expected in sorted(result.expected[batch].items()):
            compressed = result.format == "ogg"
            failures += _compare_table(dbt_project, table, expected, compressed, gold[table])
    assert not failures, "captured_rows differs from the sources:\n" + "\n".join(failures[:200])


def _assert_oracle_has_teeth(simulations, batch: int) -> None:
    for result, _ in simulations:
        rows = {t: len(e.rows) for t, e in result.expected[batch].items()}
        assert min(rows.values()) >= 2, f"a (nearly) empty table makes no test: {rows}"
    keyed_by_row_id = [
        e for r, _ in simulations if r.format == "dataworks" for e in r.expected[batch].values()
    ]
    assert [ROW_ID] in [e.key_columns for e in keyed_by_row_id]


# ------------------------------------------------------------------ the steps
@pytest.mark.stream("batch0")
def test_first_batch_captures_every_table(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _assert_oracle_has_teeth(simulations, 0)
    _assert_gold_matches(dbt_project, simulations, 0)


@pytest.mark.stream("batch0")
def test_first_batch_keyless_canal_update_removes_the_old_row(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """Gold of canal_db.events after batch 0 is exactly the multiset of source rows: an
    UPDATE of a table without pkNames (keyed by its whole row image) retires one copy of
    its before image (seed 82 updates four rows of `events` in batch 0, none truncated
    before the build)."""
    [canal] = [r for r, _ in simulations if r.format == "canal"]
    table = f"{canal.config.database}.events"
    assert _compare_table(dbt_project, table, canal.expected[0][table]) == []


@pytest.mark.stream("batch0")
def test_every_message_is_accounted_for(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    bronze = dbt_project.layer("bronze")
    silver = dbt_project.layer("silver")
    sent = sum(len(result.batches[0]) for result, _ in simulations)
    mine = f"_source_file like '{dbt_project.landed_under(PART)}'"
    [counts] = dbt_project.sql(
        f"select (select count(*) from {bronze}.bronze_cdc_messages where {mine}) as bronze, "
        f"(select count(distinct _message_id) from {silver}.stg_cdc__messages where {mine}) "
        f"as silver, (select count(*) from {silver}.stg_cdc__messages "
        f" where _cdc_message_kind = 'error' and {mine}) as errors, "
        f"(select count(*) from {silver}.cdc_quarantine where {mine}) as quarantined"
    )
    assert counts == {"bronze": sent, "silver": sent, "errors": 0, "quarantined": 0}
    # every message was read by its family
    rows = dbt_project.sql(
        f"select _kafka_topic, _cdc_envelope, count(distinct _message_id) as n "
        f"from {silver}.stg_cdc__messages where {mine} group by 1, 2"
    )
    assert {(r["_kafka_topic"], r["_cdc_envelope"]): r["n"] for r in rows} == {
        (result.topic, ENVELOPES[result.format]): len(result.batches[0])
        for result, _ in simulations
    }


@pytest.mark.stream("batch1")
def test_second_batch_with_redeliveries_applies_incrementally(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _assert_oracle_has_teeth(simulations, 1)
    _assert_gold_matches(dbt_project, simulations, 1)
    mine = f"where _source_file like '{dbt_project.landed_under(PART)}'"
    [counts] = dbt_project.sql(
        f"select (select count(*) from {dbt_project.layer('bronze')}.bronze_cdc_messages "
        f"{mine}) as bronze, (select count(*) from {dbt_project.layer('silver')}.cdc_quarantine "
        f"{mine}) as quarantined"
    )
    landed = sum(len(r.batches[0]) + len(r.batches[1]) for r, _ in simulations)
    assert counts == {"bronze": landed, "quarantined": 0}


@pytest.mark.stream("batch1")
def test_maxwell_key_change_retires_the_old_key(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """Issue #31, finding 5: a Maxwell update whose `old` carries the previous `id`, keyed
    only by its Kafka key (`pk.id` names the new row; no `primary_key_columns`), is two row
    changes: a delete of the old key (read off `data` overlaid with `old`), then the update
    of the new one. Gold (test_second_batch_...) then holds the new key only."""
    [maxwell] = [r for r, _ in simulations if r.format == "maxwell"]
    wanted = {}
    for batch in (0, 1):
        for m in maxwell.batches[batch]:
            value = json.loads(str(m.value))
            if value["type"] == "update" and "id" in value.get("old", {}):
                old, new = value["old"]["id"], value["data"]["id"]
                wanted[m.offset] = [(0, "d", f'{{"id":"{old}"}}'), (1, "u", f'{{"id":"{new}"}}')]
    rows = dbt_project.sql(
        f"select _kafka_offset, _cdc_row_index, _cdc_op, _cdc_key "
        f"from {dbt_project.layer('silver')}.stg_cdc__messages "
        f"where _kafka_topic = '{maxwell.topic}' and _cdc_source_table = 'items' order by all"
    )
    changes: dict[int, list[tuple[int, str, str]]] = {}
    for row in rows:
        changes.setdefault(row["_kafka_offset"], []).append(
            (row["_cdc_row_index"], row["_cdc_op"], row["_cdc_key"])
        )
    assert len(wanted) >= 6
    assert {offset: changes.get(offset) for offset in wanted} == wanted


def _utc(ms: int | None) -> datetime | None:
    """Epoch ms as the naive UTC timestamp Spark returns (the session runs in UTC)."""
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).replace(tzinfo=None)


@pytest.mark.stream("batch1")
def test_sync_progress_holds_the_latest_heartbeat(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        f"select sync_source, _cdc_envelope, last_heartbeat_event_ts, "
        f"last_heartbeat_checkpoint_ts, last_heartbeat_system_ts, heartbeats "
        f"from {dbt_project.layer('silver')}.stg_cdc__sync_progress"
    )
    progress = {(r["sync_source"], r["_cdc_envelope"]): r for r in rows}
    for result, _ in simulations:
        if result.format != "dataworks":
            continue
        [heartbeat] = result.heartbeats[-1].values()
        sent = sum(
            1
            for m in result.messages
            if m.value and json.loads(m.value)["payload"]["op"] == "MHEARTBEAT"
        )
        row = progress[(result.topic, "alibaba_dataworks")]
        assert {k: row[k] for k in row if k.startswith("last_heartbeat") or k == "heartbeats"} == {
            "last_heartbeat_event_ts": _utc(heartbeat.event_time),
            "last_heartbeat_checkpoint_ts": _utc(heartbeat.checkpoint_time),
            "last_heartbeat_system_ts": _utc(heartbeat.system_time),
            "heartbeats": sent,
        }, result.config.database
    for result, _ in simulations:
        if result.format != "dataworks":
            row = progress[(result.topic, ENVELOPES[result.format])]
            assert row["heartbeats"] == 0 and row["last_heartbeat_event_ts"] is None


@pytest.mark.stream("noop")
def test_a_run_without_new_files_changes_nothing(dbt_project, simulations, stream) -> None:  # type: ignore[no-untyped-def]
    before = stream.before(PART, "noop")
    assert before, "this module's sources have rows in captured_rows"
    assert _own_captured_rows(dbt_project) == before
    _assert_gold_matches(dbt_project, simulations, 1)


@pytest.mark.stream("full_refresh")
def test_full_refresh_gives_what_the_incremental_runs_gave(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _assert_gold_matches(dbt_project, simulations, 1)


# ------------------------------------------------------------------ OGG's documented shapes
def _ogg_fixture_rows(dbt_project) -> dict[object, tuple[dict, bool]]:  # type: ignore[no-untyped-def]
    """EMP_ID -> (raw row image, _cdc_is_partial) of the fixture's table in gold."""
    rows = dbt_project.sql(
        f"select _cdc_row_json_raw, _cdc_is_partial from {dbt_project.layer('gold')}.captured_rows "
        "where _cdc_source_id = 'hr.employees'"
    )
    images = [(json.loads(str(r["_cdc_row_json_raw"])), r["_cdc_is_partial"]) for r in rows]
    return {image["EMP_ID"]: (image, partial) for image, partial in images}


@pytest.mark.stream("batch0")
def test_ogg_compressed_update_keeps_the_columns_it_does_not_carry(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """An update carrying the key and NAME only changes NAME: SALARY and HIRED stay. An
    update of a row never seen whole is kept, flagged partial, and listed in quarantine."""
    got = _ogg_fixture_rows(dbt_project)
    assert {key: typed(image) for key, (image, _) in got.items()} == {
        key: typed(row) for key, row in OGG_EXPECTED["batch0"].items()
    }
    assert {key for key, (_, partial) in got.items() if partial} == {7}
    assert _ogg_quarantine(dbt_project) == [("partial_document", 5)]


@pytest.mark.stream("batch1")
def test_ogg_flags_compressed_delete_and_key_change_in_the_next_run(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """Folded onto the rows of the run before: SALARY_isMissing false with null is a real
    null (NAME and HIRED flagged missing stay); a delete holding only the key removes the
    row; a U from EMP_ID 2 to 20 retires 2 and gives 20 the row 2 had, with the update's
    columns; a late copy of batch0's update changes nothing; the flags are no columns."""
    got = _ogg_fixture_rows(dbt_project)
    assert {key: typed(image) for key, (image, _) in got.items()} == {
        key: typed(row) for key, row in OGG_EXPECTED["batch1"].items()
    }
    assert {key for key, (_, partial) in got.items() if partial} == {7}
    assert _ogg_quarantine(dbt_project) == [("partial_document", 5)]


def _ogg_quarantine(dbt_project) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    """(reason_code, line) of the fixture part's quarantined messages."""
    rows = dbt_project.sql(
        f"select reason_code, _source_line from {dbt_project.layer('silver')}.cdc_quarantine "
        f"where _source_file like '{dbt_project.landed_under(OGG_PART)}'"
    )
    return sorted((r["reason_code"], r["_source_line"]) for r in rows)
