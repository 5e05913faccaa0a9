"""Names that differ only by case; Debezium heartbeats and signal rows (issue #18, items 3, 5).

One landing file of kcat records from one Db2 server (`db2srv`, database `TESTDB`, schema
`MYSCHEMA`), one `dbt build`:

* two tables whose names differ only by case, `ORDERS` (unquoted, folded to upper case by
  Db2) and `"orders"` (quoted), each with two columns that differ only by case (`Name`,
  `NAME`). Value-only records (no Kafka key): each table is keyed by a declared key bound
  to its case-exact name (`cdc_table_keys` entries in double quotes), so a case-insensitive
  match would key `ORDERS` by the wrong columns. One `ORDERS` update is schema-wrapped (its
  `SHIPPED` column is an `io.debezium.time.Date`, decoded in `captured_rows`);
* Debezium heartbeats on `__debezium-heartbeat.db2srv` (key `{"serverName": ...}`, value
  `{"ts_ms": ...}`, one plain and one schema-wrapped): they feed stg_cdc__sync_progress;
* rows of the signal tables `DEBEZIUM_SIGNAL` (the default of `cdc_signal_tables`) and
  `CTL_SIGNAL` (added by the var): control messages, kept out of `captured_rows`.

Nothing may be quarantined. Expected values are written out by hand below.

On the code before this change the build failed: `_cdc_json_map` lower-cased `Name` and
`NAME` to one map key (Spark DUPLICATED_MAP_KEY), and the heartbeats were quarantined as
`unknown_envelope`, the signal rows captured as data.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

pytestmark = pytest.mark.spark

SERVER = "db2srv"
HEARTBEAT_TOPIC = f"__debezium-heartbeat.{SERVER}"
DATE = "io.debezium.time.Date"
VARS = {
    "cdc_table_keys": {'"orders"': ["ID"], '"ORDERS"': ["ID", "QTY"]},
    "cdc_signal_tables": ["debezium_signal", "TESTDB.*.ctl_signal"],
}
# the models this module reads and their tests (not the typed inventory models)
SELECT = (
    "+captured_rows",
    "+cdc_quarantine",
    "+stg_cdc__sync_progress",
    "+int_cdc__control_messages",
)
ORDERS_ID = "testdb.myschema.orders"  # ORDERS: upper case is Db2's folded (unquoted) form
QUOTED_ID = 'testdb.myschema."orders"'  # "orders": a quoted, case-sensitive name


def _source(table: str, lsn: int) -> dict[str, object]:
    return {
        "version": "2.3.7.Final",
        "connector": "db2",
        "name": SERVER,
        "ts_ms": 1_700_000_000_000 + lsn * 1000,
        "snapshot": False,
        "db": "TESTDB",
        "schema": "MYSCHEMA",
        "table": table,
        "change_lsn": f"00000027:{lsn:08x}:0003",
        "commit_lsn": f"00000027:{lsn:08x}:0005",
    }


def _change(table: str, op: str, before: object, after: object, lsn: int) -> dict[str, object]:
    return {
        "before": before,
        "after": after,
        "source": _source(table, lsn),
        "op": op,
        "ts_ms": 1_700_000_000_500 + lsn * 1000,
    }


def _row_schema(field: str) -> dict[str, object]:
    return {
        "type": "struct",
        "optional": True,
        "name": f"{SERVER}.MYSCHEMA.ORDERS.Value",
        "field": field,
        "fields": [
            {"type": "int32", "optional": False, "field": "ID"},
            {"type": "string", "optional": True, "field": "Name"},
            {"type": "string", "optional": True, "field": "NAME"},
            {"type": "int32", "optional": False, "field": "QTY"},
            {"type": "int32", "optional": True, "name": DATE, "field": "SHIPPED"},
        ],
    }


def _wrapped(payload: dict[str, object]) -> dict[str, object]:
    schema = {
        "type": "struct",
        "optional": False,
        "name": f"{SERVER}.MYSCHEMA.ORDERS.Envelope",
        "fields": [
            _row_schema("before"),
            _row_schema("after"),
            {"type": "struct", "optional": False, "field": "source", "fields": []},
            {"type": "string", "optional": False, "field": "op"},
            {"type": "int64", "optional": True, "field": "ts_ms"},
        ],
    }
    return {"schema": schema, "payload": payload}


def _heartbeat(ts_ms: int, wrapped: bool) -> tuple[object, object]:
    key: object = {"serverName": SERVER}
    value: object = {"ts_ms": ts_ms}
    if wrapped:
        key = {
            "schema": {
                "type": "struct",
                "name": "io.debezium.connector.common.ServerNameKey",
                "optional": False,
                "fields": [{"field": "serverName", "type": "string", "optional": False}],
            },
            "payload": key,
        }
        value = {
            "schema": {
                "type": "struct",
                "name": "io.debezium.connector.common.Heartbeat",
                "optional": False,
                "fields": [{"field": "ts_ms", "type": "int64", "optional": False}],
            },
            "payload": value,
        }
    return key, value


A1 = {"ID": 1, "Name": "a1", "NAME": "A1", "QTY": 5, "SHIPPED": 17000}
A2 = {"ID": 2, "Name": "a2", "NAME": "A2", "QTY": 7, "SHIPPED": 17001}
B1 = {**A1, "Name": "b1", "NAME": "B1", "SHIPPED": 18000}
X1 = {"ID": 1, "Name": "x1", "NAME": "X1"}
X3 = {"ID": 3, "Name": "x3", "NAME": "X3"}
Y3 = {**X3, "Name": "y3", "NAME": "Y3"}
HEARTBEATS_MS = (1_700_000_030_000, 1_700_000_090_000)

# (topic, key, value) in offset order
RECORDS: list[tuple[str, object, object]] = [
    (f"{SERVER}.MYSCHEMA.ORDERS", None, _change("ORDERS", "c", None, A1, 1)),
    (f"{SERVER}.MYSCHEMA.ORDERS", None, _change("ORDERS", "c", None, A2, 2)),
    (f"{SERVER}.MYSCHEMA.orders", None, _change("orders", "c", None, X1, 3)),
    (f"{SERVER}.MYSCHEMA.orders", None, _change("orders", "c", None, X3, 4)),
    (HEARTBEAT_TOPIC, *_heartbeat(HEARTBEATS_MS[0], wrapped=False)),
    (f"{SERVER}.MYSCHEMA.ORDERS", None, _wrapped(_change("ORDERS", "u", A1, B1, 5))),
    (f"{SERVER}.MYSCHEMA.ORDERS", None, _change("ORDERS", "d", A2, None, 6)),
    (f"{SERVER}.MYSCHEMA.ORDERS", None, None),  # the delete's tombstone
    (f"{SERVER}.MYSCHEMA.orders", None, _change("orders", "u", X3, Y3, 7)),
    (
        f"{SERVER}.MYSCHEMA.DEBEZIUM_SIGNAL",
        {"ID": "ad-hoc-1"},
        _change(
            "DEBEZIUM_SIGNAL",
            "c",
            None,
            {
                "ID": "ad-hoc-1",
                "TYPE": "execute-snapshot",
                "DATA": '{"data-collections": ["MYSCHEMA.ORDERS"], "type": "incremental"}',
            },
            8,
        ),
    ),
    (
        f"{SERVER}.MYSCHEMA.CTL_SIGNAL",
        None,
        _change("CTL_SIGNAL", "c", None, {"ID": "log-1", "TYPE": "log", "DATA": "{}"}, 9),
    ),
    (HEARTBEAT_TOPIC, *_heartbeat(HEARTBEATS_MS[1], wrapped=True)),
]


def _kcat_line(offset: int, topic: str, key: object, value: object) -> str:
    return json.dumps(
        {
            "topic": topic,
            "partition": 0,
            "offset": offset,
            "tstype": "create",
            "ts": 1_700_000_100_000 + offset,
            "key": None if key is None else json.dumps(key),
            "payload": None if value is None else json.dumps(value),
        }
    )


@pytest.fixture(scope="module")
def built(dbt_project):  # type: ignore[no-untyped-def]
    lines = [_kcat_line(offset, *record) for offset, record in enumerate(RECORDS)]
    (dbt_project.landing / "db2srv.json").write_text("\n".join(lines) + "\n")
    dbt_project.run("build", "--select", *SELECT, "--indirect-selection", "cautious", vars=VARS)
    return dbt_project


def test_tables_and_columns_differing_by_case_stay_apart(built) -> None:  # type: ignore[no-untyped-def]
    rows = built.sql(
        "select _cdc_source_id, _cdc_source_table, _cdc_key, _cdc_row_json "
        f"from {built.layer('gold')}.captured_rows"
    )
    actual = [
        (
            str(r["_cdc_source_id"]),
            str(r["_cdc_source_table"]),
            json.loads(str(r["_cdc_key"])),
            json.loads(str(r["_cdc_row_json"])),
        )
        for r in rows
    ]
    expected = sorted(
        [
            # declared key '"ORDERS"': [ID, QTY]; the update decoded SHIPPED (18000 days)
            (
                ORDERS_ID,
                "ORDERS",
                {"id": "1", "qty": "5"},
                {**B1, "SHIPPED": "2019-04-14"},
            ),
            # declared key '"orders"': [ID]
            (QUOTED_ID, "orders", {"id": "1"}, X1),
            (QUOTED_ID, "orders", {"id": "3"}, Y3),
        ],
        key=lambda row: (row[0], json.dumps(row[2])),
    )
    assert sorted(actual, key=lambda row: (row[0], json.dumps(row[2]))) == expected


def test_heartbeats_feed_the_freshness_model(built) -> None:  # type: ignore[no-untyped-def]
    rows = built.sql(
        "select _cdc_envelope, heartbeats, messages, last_heartbeat_event_ts, last_event_ts "
        f"from {built.layer('silver')}.stg_cdc__sync_progress "
        f"where sync_source = '{HEARTBEAT_TOPIC}'"
    )
    assert len(rows) == 1, rows
    (row,) = rows
    newest = datetime.fromtimestamp(HEARTBEATS_MS[1] / 1000, tz=timezone.utc).replace(tzinfo=None)
    assert (row["_cdc_envelope"], row["heartbeats"], row["messages"]) == (
        "debezium_relational",
        2,
        0,
    )
    assert row["last_heartbeat_event_ts"] == newest
    assert row["last_event_ts"] == newest


def test_signals_are_control_messages_not_rows(built) -> None:  # type: ignore[no-untyped-def]
    silver = built.layer("silver")
    kinds = built.sql(
        f"select _cdc_message_kind as kind, _cdc_source_table as source_table, count(*) as n "
        f"from {silver}.stg_cdc__messages group by 1, 2"
    )
    assert {(r["kind"], r["source_table"]): r["n"] for r in kinds} == {
        ("change", "ORDERS"): 4,
        ("tombstone", None): 1,
        ("change", "orders"): 3,
        ("heartbeat", None): 2,
        ("signal", "DEBEZIUM_SIGNAL"): 1,
        ("signal", "CTL_SIGNAL"): 1,
    }
    signals = built.sql(
        f"select _cdc_source_id from {silver}.int_cdc__control_messages "
        "where _cdc_message_kind = 'signal'"
    )
    assert sorted(r["_cdc_source_id"] for r in signals) == [
        "testdb.myschema.ctl_signal",
        "testdb.myschema.debezium_signal",
    ]


def test_nothing_is_quarantined(built) -> None:  # type: ignore[no-untyped-def]
    rows = built.sql(
        f"select reason_code, _cdc_source_id from {built.layer('silver')}.cdc_quarantine"
    )
    assert rows == []


def test_control_messages_carry_their_value_from_the_parsing_model(built) -> None:  # type: ignore[no-untyped-def]
    """Bronze is read once: `int_cdc__control_messages` takes each control message's value
    from `stg_cdc__messages._cdc_control_value` (null for every other kind), not from a
    second read of bronze, and it is bronze's `message_value` byte for byte."""
    silver, bronze = built.layer("silver"), built.layer("bronze")
    rows = built.sql(
        "select control._cdc_message_kind as kind, control.message_value = raw.message_value "
        "as same, control.message_value is not null as has_value "
        f"from {silver}.int_cdc__control_messages as control "
        f"inner join {bronze}.bronze_cdc_messages as raw on control._message_id = raw._message_id"
    )
    assert sorted((r["kind"], r["same"], r["has_value"]) for r in rows) == [
        ("signal", True, True),
        ("signal", True, True),
    ]
    carried = built.sql(
        "select _cdc_message_kind as kind, count(_cdc_control_value) as with_value "
        f"from {silver}.stg_cdc__messages group by 1"
    )
    assert {r["kind"]: r["with_value"] for r in carried} == {
        "change": 0,
        "tombstone": 0,
        "heartbeat": 0,
        "signal": 2,
    }
    manifest = json.loads((built.target_path / "manifest.json").read_text())
    (node,) = [n for n in manifest["nodes"].values() if n["name"] == "int_cdc__control_messages"]
    assert [d.split(".")[-1] for d in node["depends_on"]["nodes"]] == ["stg_cdc__messages"]


def test_a_parsing_table_without_a_new_column_asks_for_a_rebuild(built) -> None:  # type: ignore[no-untyped-def]
    """A warehouse built before `_cdc_control_value` existed: the next run stops at
    `stg_cdc__messages` and names the rebuild (`_cdc_require_columns`) instead of appending
    without the column and failing in the models that read it."""
    silver = built.layer("silver")
    table, kept = f"{silver}.stg_cdc__messages", f"{silver}.stg_cdc__messages__kept"
    built.spark.sql(f"alter table {table} rename to {kept}")  # type: ignore[attr-defined]
    try:
        # as an older version left it: the columns but the new one, no run bookkeeping
        built.spark.sql(  # type: ignore[attr-defined]
            f"create table {table} using parquet as "
            f"select * except (_cdc_control_value) from {kept}"
        )
        result = built.run("run", "--select", "stg_cdc__messages", vars=VARS, expect_success=False)
        message = str(result.exception or "") + " ".join(
            str(r.message) for r in getattr(result.result, "results", None) or []
        )
        assert not result.success
        assert "_cdc_control_value" in message, message
        assert "dbt build --full-refresh --select stg_cdc__messages+" in message, message
    finally:
        built.spark.sql(f"drop table if exists {table}")  # type: ignore[attr-defined]
        built.spark.sql(f"alter table {kept} rename to {table}")  # type: ignore[attr-defined]
