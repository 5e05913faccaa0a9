"""End to end: the messages other producers of the Debezium, Canal and Maxwell formats
write reach gold: Flink's, ordered by arrival (they carry no source position), and TiCDC's,
ordered by its commit timestamp.

The Flink fixtures (tests/fixtures/flink/, see its README) are the outputs Flink's own
tests publish:

* Flink SQL's `canal-json`, `maxwell-json` and `debezium-json` writers (Flink's SerDe
  tests): `{"data": [row], "type"}`, `{"data": row, "type"}` and `{"before", "after",
  "op"}`, with no database, table or position. Each update is two messages, a delete of the
  old row then an insert of the new one (UPDATE_BEFORE / UPDATE_AFTER). The table comes
  from the topic, through the var `cdc_topic_tables`, and the key from `cdc_table_keys`.
* Flink CDC's pipeline Kafka sink (its KafkaDataSinkITCase): `canal-json` with `old`,
  `database`, `table` and `pkNames` but no `isDdl`, `es`, `ts` or `id`; `debezium-json`
  whose `source` holds only `db` and `table`, with and without the schema wrapper (the
  wrapped one as kcat records keyed `{"TableId", "col1"}`), after a column was added,
  renamed and dropped.

The TiCDC fixture (tests/fixtures/ticdc/) is kcat `-J` output of TiCDC's Debezium encoder as
its documentation shows it (`"connector": "TiCDC"`, empty binlog fields, `commit_ts`),
dispatched by commit ts over two partitions (TiCDC's `ts` dispatcher), so that the changes
of one key are in both and only `commit_ts` orders them; partition 1 was read first, and a
change of the first batch's commits arrives in the second, after a later one.

Each Flink fixture lands in two batches as a Kafka Connect sink writes it
(`<topic>+<partition>+<offset>` files); the second batch splits a Flink update across the
two loads (its delete in the first, its insert in the second) and delivers four messages of
the first again, with their offsets. After each batch `captured_rows` must hold exactly
what an independent replay of the messages by the documented semantics gives (insert and
update upsert the row, a delete removes it, each offset applied once, in offset order;
TiCDC's in commit_ts order).

The fixtures are this module's part of the shared stream (tests/e2e/stream.py): their files
land under `producers/` of the stream's landing folder, and every count is scoped to them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.corpus.captured_state import typed
from tests.e2e.stream import BATCHES, Part, register
from workbench.simulator.landing import sink_file_name

pytestmark = pytest.mark.spark

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PART = "producers"


@dataclass(frozen=True)
class Feed:
    """One fixture file as one Kafka topic."""

    file: str
    fmt: str  # canal | maxwell | debezium: how the oracle reads a message
    topic: str
    source_id: str  # the table's _cdc_source_id
    key: str  # the key column
    split: int  # messages [0, split) land in batch0, the rest in batch1
    redelivered: tuple[int, ...]  # offsets of batch0 delivered again in batch1
    kcat_key: bool = False  # kcat records with Flink CDC's JSON key, else a sink file


FEEDS = (
    Feed(
        "flink_sql_canal_json.jsonl",
        "canal",
        "products_canal",
        "flink_sql.products_canal",
        "id",
        16,
        (8, 9, 10, 11),
    ),
    Feed(
        "flink_sql_maxwell_json.jsonl",
        "maxwell",
        "products_maxwell",
        "flink_sql.products_maxwell",
        "id",
        16,
        (8, 9, 10, 11),
    ),
    Feed(
        "flink_sql_debezium_json.jsonl",
        "debezium",
        "products_debezium",
        "flink_sql.products_debezium",
        "id",
        16,
        (8, 9, 10, 11),
    ),
    Feed(
        "flink_cdc_canal_json.jsonl",
        "canal",
        "default_namespace.default_schema.orders_canal",
        "default_schema.orders_canal",
        "col1",
        3,
        (1,),
    ),
    Feed(
        "flink_cdc_debezium_json.jsonl",
        "debezium",
        "default_namespace.default_schema.orders_debezium",
        "default_schema.orders_debezium",
        "col1",
        3,
        (1,),
    ),
    Feed(
        "flink_cdc_debezium_json_schema.jsonl",
        "debezium",
        "default_namespace.default_schema.orders_debezium_schema",
        "default_schema.orders_debezium_schema",
        "col1",
        3,
        (0, 2),
        kcat_key=True,
    ),
)
# Flink SQL's messages name no table: their topics do. Neither they nor Flink CDC's
# debezium-json name their key columns: those are declared (the wrapped feed's Kafka key
# names its row).
VARS: dict[str, object] = {
    "cdc_topic_tables": {
        feed.topic: feed.source_id for feed in FEEDS if feed.source_id.startswith("flink_sql.")
    },
    "cdc_table_keys": {
        feed.source_id: [feed.key]
        for feed in FEEDS
        if feed.source_id.startswith("flink_sql.") or (feed.fmt == "debezium" and not feed.kcat_key)
    },
}


# TiCDC: the kcat file's lines landed at each batch (its first line delivered again)
TICDC = FIXTURES / "ticdc" / "ticdc_debezium_ts_dispatcher.kcat.jsonl"
TICDC_SOURCE_ID = "test.orders"
TICDC_LINES = {0: (0, 1, 2, 3), 1: (4, 5, 0)}


def _ticdc_records(batch: int) -> list[str]:
    lines = TICDC.read_text().splitlines()
    return [lines[i] for i in TICDC_LINES[batch]]


def _lines(feed: Feed) -> list[str]:
    return (FIXTURES / "flink" / feed.file).read_text().splitlines()


def _batch(feed: Feed, batch: int) -> list[tuple[int, str]]:
    """(offset, message) landed at `batch`, in landing order."""
    lines = list(enumerate(_lines(feed)))
    if batch == 0:
        return lines[: feed.split]
    again = [lines[offset] for offset in feed.redelivered]
    return lines[feed.split :] + again


def _kcat_record(feed: Feed, offset: int, value: str) -> str:
    payload = json.loads(value)["payload"]
    key = {"TableId": feed.topic, feed.key: (payload["after"] or payload["before"])[feed.key]}
    return json.dumps(
        {"topic": feed.topic, "partition": 0, "offset": offset, "tstype": "create",
         "ts": 1700000000000 + offset, "broker": 1, "key": json.dumps(key), "payload": value}
    )  # fmt: skip


def _land(step: str, folder: Path) -> None:
    if step not in BATCHES:
        return
    batch = BATCHES[step]
    ticdc = folder / "ticdc" / f"tidb_test-{step}.jsonl"
    ticdc.parent.mkdir(parents=True, exist_ok=True)
    ticdc.write_text("".join(line + "\n" for line in _ticdc_records(batch)))
    for feed in FEEDS:
        messages = _batch(feed, batch)
        if feed.kcat_key:
            path = folder / "kcat" / f"{feed.topic}-{step}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(_kcat_record(feed, o, m) + "\n" for o, m in messages))
            continue
        # a sink file holds consecutive offsets from the one its name gives
        runs: list[list[tuple[int, str]]] = []
        for offset, message in messages:
            if runs and runs[-1][-1][0] + 1 == offset:
                runs[-1].append((offset, message))
            else:
                runs.append([(offset, message)])
        partition = folder / "topics" / feed.topic / "partition=0"
        partition.mkdir(parents=True, exist_ok=True)
        for run in runs:
            suffix = ".replay.json" if batch == 1 and run[0][0] < feed.split else ".json"
            path = partition / sink_file_name(feed.topic, 0, run[0][0], suffix)
            path.write_text("".join(m + "\n" for _, m in run))


register(
    Part(
        PART,
        land=_land,
        databases=("flink_sql", "default_schema", "test"),
        vars=VARS,
    )
)


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


# ------------------------------------------------------------------ the oracle
def _changes(feed: Feed, value: str) -> list[tuple[str, dict]]:
    """(upsert | delete, row) of one message, by the format's documented semantics."""
    message = json.loads(value)
    if feed.fmt == "canal":
        kind = "delete" if message["type"] == "DELETE" else "upsert"
        return [(kind, row) for row in message["data"]]
    if feed.fmt == "maxwell":
        return [("delete" if message["type"] == "delete" else "upsert", message["data"])]
    payload = message.get("payload", message)
    if payload["op"] == "d":
        return [("delete", payload["before"])]
    return [("upsert", payload["after"])]


def _expected(feed: Feed, batch: int) -> dict[str, object]:
    """{key: row} after batches 0..`batch`: each offset once, in offset order."""
    delivered = {o: m for b in range(batch + 1) for o, m in _batch(feed, b)}
    rows: dict[str, object] = {}
    for offset in sorted(delivered):
        for kind, row in _changes(feed, delivered[offset]):
            key = json.dumps(typed(row[feed.key]))
            if kind == "delete":
                rows.pop(key, None)
            else:
                rows[key] = typed(row)
    return rows


def _ticdc_expected(batch: int) -> dict[str, object]:
    """{key: row} after batches 0..`batch`: each (partition, offset) once, in commit_ts
    order (TiCDC's commit order of TiDB transactions)."""
    records = {}
    for b in range(batch + 1):
        for line in _ticdc_records(b):
            record = json.loads(line)
            records[(record["partition"], record["offset"])] = json.loads(record["payload"])
    rows: dict[str, object] = {}
    for message in sorted(records.values(), key=lambda m: m["payload"]["source"]["commit_ts"]):
        payload = message["payload"]
        image = payload["after"] or payload["before"]
        key = json.dumps(typed(image["id"]))
        if payload["op"] == "d":
            rows.pop(key, None)
        else:
            rows[key] = typed(payload["after"])
    return rows


def _gold(dbt_project: DbtProject, source_id: str, key_column: str) -> dict[str, object]:
    rows = dbt_project.sql(
        f"select _cdc_row_json_raw from {dbt_project.layer('gold')}.captured_rows "
        f"where _cdc_source_id = '{source_id}'"
    )
    gold: dict[str, object] = {}
    for row in rows:
        image = json.loads(str(row["_cdc_row_json_raw"]))
        key = json.dumps(typed(image[key_column]))
        assert key not in gold, f"{source_id}: key {key} twice in captured_rows"
        gold[key] = typed(image)
    return gold


def _assert_gold_is_the_replay(dbt_project: DbtProject, batch: int) -> None:
    failures = []
    tables = [
        (feed.source_id, _expected(feed, batch), _gold(dbt_project, feed.source_id, feed.key))
        for feed in FEEDS
    ]
    tables.append(
        (TICDC_SOURCE_ID, _ticdc_expected(batch), _gold(dbt_project, TICDC_SOURCE_ID, "id"))
    )
    for source_id, expected, gold in tables:
        assert expected, f"{source_id}: an empty table makes no test"
        for key in sorted(set(expected) | set(gold)):
            if expected.get(key) != gold.get(key):
                failures.append(
                    f"{source_id} {key}: gold {gold.get(key)} != replay {expected.get(key)}"
                )
    assert not failures, "captured_rows differs from the replay:\n" + "\n".join(failures)


# ------------------------------------------------------------------ the tests
def test_the_fixtures_have_what_the_tests_claim() -> None:
    for feed in FEEDS:
        messages = [json.loads(line) for line in _lines(feed)]
        bodies = [m.get("payload", m) for m in messages]
        # no source position, no Canal isDdl: what used to make them unreadable
        assert not any({"es", "ts", "id", "isDdl", "xid", "ts_ms"} & set(b) for b in bodies)
        assert all(set(b.get("source") or {}) <= {"db", "table"} for b in bodies)
    sql_feeds = [f for f in FEEDS if f.source_id.startswith("flink_sql.")]
    for feed in sql_feeds:
        bodies = [json.loads(line) for line in _lines(feed)]
        assert not any({"database", "table", "source"} & set(b) for b in bodies)
        # an update split over the two batches: the first ends with a delete of a key the
        # second starts by inserting again
        first, second = (
            _changes(feed, _lines(feed)[feed.split - 1]),
            _changes(feed, _lines(feed)[feed.split]),
        )
        assert first[0][0] == "delete" and second[0][0] == "upsert"
        assert first[0][1][feed.key] == second[0][1][feed.key]


@pytest.mark.stream("batch0")
def test_flink_messages_reach_gold_in_arrival_order(dbt_project) -> None:  # type: ignore[no-untyped-def]
    _assert_gold_is_the_replay(dbt_project, 0)
    silver = dbt_project.layer("silver")
    mine = (
        f"_source_file like '{dbt_project.landed_under(PART)}' "
        "and _source_file not like '%/ticdc/%'"
    )
    [counts] = dbt_project.sql(
        f"select count(distinct _message_id) as messages, "
        f"count_if(_cdc_message_kind = 'change') as changes "
        f"from {silver}.stg_cdc__messages where {mine}"
    )
    sent = sum(len(_batch(feed, 0)) for feed in FEEDS)
    assert counts["messages"] == counts["changes"] == sent, counts
    [quarantined] = dbt_project.sql(
        f"select count(*) as n from {silver}.cdc_quarantine where {mine}"
    )
    assert quarantined["n"] == 0
    # every position is the message's Kafka partition and offset
    rows = dbt_project.sql(
        f"select _cdc_position, _kafka_partition, _kafka_offset "
        f"from {silver}.stg_cdc__messages where {mine}"
    )
    assert all(
        r["_cdc_position"] == f"{r['_kafka_partition']:06d}{r['_kafka_offset']:020d}" for r in rows
    ), rows[:3]


@pytest.mark.stream("batch1")
def test_a_split_update_across_loads_and_redelivered_messages_give_the_replay(dbt_project) -> None:  # type: ignore[no-untyped-def]
    _assert_gold_is_the_replay(dbt_project, 1)


@pytest.mark.stream("full_refresh")
def test_a_full_refresh_gives_the_replay(dbt_project) -> None:  # type: ignore[no-untyped-def]
    _assert_gold_is_the_replay(dbt_project, 1)


@pytest.mark.stream("batch0")
def test_ticdc_changes_are_ordered_by_commit_ts(dbt_project) -> None:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        f"select silver._cdc_connector, silver._cdc_position, silver._cdc_error_reason, "
        f"bronze.message_value from {dbt_project.layer('silver')}.stg_cdc__messages as silver "
        f"join {dbt_project.layer('bronze')}.bronze_cdc_messages as bronze "
        f"on silver._message_id = bronze._message_id "
        f"where silver._source_file like '%/{PART}/ticdc/%'"
    )
    assert len(rows) == len(TICDC_LINES[0])
    for row in rows:
        commit_ts = json.loads(row["message_value"])["payload"]["source"]["commit_ts"]
        assert row["_cdc_error_reason"] is None, row["_cdc_error_reason"]
        assert (row["_cdc_connector"], row["_cdc_position"]) == ("ticdc", f"{commit_ts:020d}")
