"""Unit tests for the DataWorks, Canal and Maxwell simulators (no Spark).

The replays below read only the emitted JSON (written independently of the emitters) and
must reproduce the simulator's oracle, which comes from the source's own rows.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from workbench.simulator import write_batch
from workbench.simulator.alibaba_sim import (
    AlibabaSimResult,
    expected_to_jsonable,
    simulate_canal,
    simulate_dataworks,
    simulate_maxwell,
    write_expected_json,
)
from workbench.simulator.alibaba_source import ROW_ID, AlibabaSimConfig
from workbench.simulator.canal import java_double_text
from workbench.simulator.dataworks import DataWorksOptions
from workbench.simulator.debezium import Message

# Key sets of the corpus fixtures (paimon__aliyun-dataworks-event, seatunnel canal),
# checked against the files by test_fixture_key_sets_match_corpus when the corpus is there.
DW_TOP = {"schema", "payload", "version"}
DW_SCHEMA = {"dataColumn", "primaryKey", "source"}
DW_SOURCE = {"dbType", "dbName", "tableName"}
DW_PAYLOAD = {"before", "after", "sequenceId", "timestamp", "op", "ddl"}
DW_TIMESTAMP = {"eventTime", "systemTime", "checkpointTime"}
CANAL_KEYS = {
    "data", "database", "es", "id", "isDdl", "mysqlType", "old", "pkNames", "sql", "sqlType",
    "table", "ts", "type",
}  # fmt: skip
DATA_OPS = {"INSERT", "UPDATE_BEFOR", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE", "TRUNCATE"}
MAXWELL_KEYS = {"database", "table", "type", "ts", "xid", "data"}  # + xoffset/commit, old
CONFIG = AlibabaSimConfig(seed=7)
REDELIVER = AlibabaSimConfig(seed=11, redeliver_fraction=0.15)
# Maxwell writes nothing for a TRUNCATE: its workloads have none.
MAXWELL = AlibabaSimConfig(seed=7, truncate_probability=0.0, pk_change_probability=0.25)
MAXWELL_REDELIVER = AlibabaSimConfig(seed=11, redeliver_fraction=0.15, truncate_probability=0.0)


def _values(messages) -> list[dict]:  # type: ignore[no-untyped-def]
    return [json.loads(m.value) for m in messages]


# ----------------------------------------------------------------- reference replays
def replay_dataworks(records: list[dict]) -> dict[str, dict[tuple, dict]]:
    """Order by int(sequenceId), then arrival; a split update's halves pair by sequenceId."""
    data = [(r, i) for i, r in enumerate(records) if r["payload"]["op"] in DATA_OPS]
    data.sort(key=lambda x: (int(x[0]["payload"]["sequenceId"]), x[1]))
    state: dict[str, dict[tuple, dict]] = {}
    befores: dict[str, tuple] = {}
    for r, _ in data:
        p, src = r["payload"], r["schema"]["source"]
        rows = state.setdefault(f"{src['dbName']}.{src['tableName']}", {})
        keys = r["schema"]["primaryKey"] or [ROW_ID]

        def key(image: dict, keys: list[str] = keys) -> tuple:
            return tuple(image["dataColumn"][k] for k in keys)

        op = p["op"]
        if op == "TRUNCATE":
            rows.clear()
        elif op == "INSERT":
            rows[key(p["after"])] = p["after"]["dataColumn"]
        elif op in ("UPDATE_BEFOR", "UPDATE_BEFORE"):
            assert p["after"] is None
            befores[p["sequenceId"]] = key(p["before"])
        elif op == "UPDATE_AFTER":
            old = key(p["before"]) if p["before"] else befores.pop(p["sequenceId"])
            rows.pop(old, None)
            rows[key(p["after"])] = p["after"]["dataColumn"]
        else:
            rows.pop(key(p["before"]), None)
    return state


def replay_canal(records: list[dict]) -> dict[str, object]:
    """Order by (es, ts, arrival) (= file order without redelivery); ``old`` overlaid on
    ``data`` is the before image. Tables without pkNames are multisets (sorted lists)."""
    order = sorted(range(len(records)), key=lambda i: (records[i]["es"], records[i]["ts"], i))
    keyed: dict[str, dict[tuple, dict]] = {}
    bags: dict[str, list[dict]] = {}
    for i in order:
        r = records[i]
        table = f"{r['database']}.{r['table']}"
        if r["type"] == "TRUNCATE":
            keyed.get(table, {}).clear()
            bags.get(table, []).clear()
            continue
        if r["isDdl"]:
            continue
        pk = r["pkNames"]
        for n, row in enumerate(r["data"]):
            before = {**row, **r["old"][n]} if r["type"] == "UPDATE" else row
            if pk:
                rows = keyed.setdefault(table, {})
                if r["type"] != "INSERT":
                    rows.pop(tuple(before[k] for k in pk), None)
                if r["type"] != "DELETE":
                    rows[tuple(row[k] for k in pk)] = row
            else:
                bag = bags.setdefault(table, [])
                if r["type"] != "INSERT":
                    bag.remove(before)
                if r["type"] != "DELETE":
                    bag.append(row)
    out: dict[str, object] = dict(keyed)
    for table, bag in bags.items():
        out[table] = sorted(bag, key=lambda row: json.dumps(row, sort_keys=True))
    return out


def _json_key(m: Message) -> dict | None:
    """A Maxwell Kafka key as JSON (a DDL message's key is a bare UUID: None)."""
    return json.loads(m.key) if m.key and m.key.startswith("{") else None


def replay_maxwell(messages: list[Message]) -> dict[str, object]:
    """Order by (ts, xid, xoffset with the commit row last), then arrival. The Kafka key's
    ``pk.*`` fields key the row after the change; an update's before image is ``data``
    overlaid with ``old``, and the row it replaces is keyed by the same columns read off
    it. Tables whose key has no ``pk.*`` field (only ``_uuid``) are multisets."""
    records = [(_json_key(m), json.loads(str(m.value))) for m in messages]

    def position(i: int) -> tuple:
        r = records[i][1]
        return (r["ts"], r.get("xid", 0), r.get("xoffset", float("inf")), i)

    keyed: dict[str, dict[tuple, dict]] = {}
    bags: dict[str, list[dict]] = {}
    for i in sorted(range(len(records)), key=position):
        key, r = records[i]
        if r["type"] not in ("insert", "update", "delete"):
            continue  # DDL
        assert key is not None
        table = f"{r['database']}.{r['table']}"
        columns = [field[3:] for field in key if field.startswith("pk.")]
        data = r["data"]
        before = {**data, **r.get("old", {})}
        if columns:
            rows = keyed.setdefault(table, {})
            if r["type"] != "insert":
                rows.pop(tuple(before[c] for c in columns), None)
            if r["type"] != "delete":
                rows[tuple(key[f"pk.{c}"] for c in columns)] = data
        else:
            bag = bags.setdefault(table, [])
            if r["type"] != "insert":
                bag.remove(before)
            if r["type"] != "delete":
                bag.append(data)
    out: dict[str, object] = dict(keyed)
    for table, bag in bags.items():
        out[table] = sorted(bag, key=lambda row: json.dumps(row, sort_keys=True))
    return out


def _check_replays(result: AlibabaSimResult) -> None:
    for i, expected in enumerate(result.expected):
        messages = [m for batch in result.batches[: i + 1] for m in batch]
        if result.format == "maxwell":
            replayed = replay_maxwell(messages)
        elif result.format == "dataworks":
            replayed = replay_dataworks(_values(messages))  # type: ignore[assignment]
        else:
            replayed = replay_canal(_values(messages))
        for table, exp in expected.items():
            got = replayed.get(table, {} if exp.key_columns else [])
            want = exp.by_key() if exp.key_columns else exp.rows
            assert got == want, f"batch {i} {table}"


# --------------------------------------------------------------------------- tests
@pytest.mark.parametrize("simulate", [simulate_dataworks, simulate_canal])
def test_deterministic(simulate) -> None:  # type: ignore[no-untyped-def]
    a, b = simulate(CONFIG), simulate(CONFIG)
    assert [m.value for m in a.messages] == [m.value for m in b.messages]
    assert [expected_to_jsonable(e) for e in a.expected] == [
        expected_to_jsonable(e) for e in b.expected
    ]
    other = simulate(AlibabaSimConfig(seed=8))
    assert [m.value for m in other.messages] != [m.value for m in a.messages]


@pytest.mark.parametrize(
    "options",
    [
        DataWorksOptions(),
        DataWorksOptions(update_mode="single", db_type="mysql", include_scn=True),
        DataWorksOptions(before_op="UPDATE_BEFORE", double_as_string=True, partitions=3),
        DataWorksOptions(full_load_minus_one=False, transaction_markers=False),
    ],
)
@pytest.mark.parametrize("config", [CONFIG, REDELIVER])
def test_dataworks_replay_reproduces_oracle(config, options) -> None:  # type: ignore[no-untyped-def]
    _check_replays(simulate_dataworks(config, options))


@pytest.mark.parametrize("config", [CONFIG, REDELIVER, AlibabaSimConfig(seed=5, batches=4)])
def test_canal_replay_reproduces_oracle(config) -> None:  # type: ignore[no-untyped-def]
    _check_replays(simulate_canal(config))


@pytest.mark.parametrize(
    "config",
    [MAXWELL, MAXWELL_REDELIVER, AlibabaSimConfig(seed=5, batches=4, truncate_probability=0)],
)
def test_maxwell_replay_reproduces_oracle(config) -> None:  # type: ignore[no-untyped-def]
    _check_replays(simulate_maxwell(config))


def test_redelivery_repeats_messages() -> None:
    results = (simulate_dataworks(REDELIVER), simulate_canal(REDELIVER))
    for result in (*results, simulate_maxwell(MAXWELL_REDELIVER)):
        values = Counter(m.value for m in result.messages)
        assert sum(len(r) for r in result.redelivered) > 5
        assert all(values[m.value] >= 2 for r in result.redelivered for m in r)
    assert not any(simulate_canal(CONFIG).redelivered)


def test_dataworks_every_op_and_shapes() -> None:
    result = simulate_dataworks(CONFIG)
    records = _values(result.messages)
    ops = Counter(r["payload"]["op"] for r in records)
    assert set(ops) == {
        "INSERT", "UPDATE_BEFOR", "UPDATE_AFTER", "DELETE", "TRUNCATE", "ALTER",
        "MHEARTBEAT", "TRANSACTION_BEGIN", "TRANSACTION_END",
    }  # fmt: skip
    for r in records:
        assert r.keys() == DW_TOP and r["schema"].keys() == DW_SCHEMA
        assert r["payload"].keys() == DW_PAYLOAD
        if r["payload"]["op"] == "MHEARTBEAT":
            assert r["schema"] == {"dataColumn": None, "primaryKey": None, "source": None}
            p = r["payload"]
            assert p["before"] is p["after"] is p["sequenceId"] is p["ddl"] is None
            assert list(p["timestamp"]) == ["eventTime", "checkpointTime"]
        elif r["payload"]["op"] in DATA_OPS - {"TRUNCATE"}:
            assert DW_SOURCE <= set(r["schema"]["source"])
            assert set(r["payload"]["timestamp"]) == DW_TIMESTAMP
    alter = next(r for r in records if r["payload"]["op"] == "ALTER")
    assert alter["payload"]["ddl"]["text"].startswith("ALTER TABLE `items` ADD COLUMN `note`")
    assert alter["schema"]["dataColumn"][-1] == {"name": "note", "type": "STRING"}
    no_pk = next(r for r in records if r["schema"]["source"] and
                 r["schema"]["source"]["tableName"] == "events")  # fmt: skip
    assert no_pk["schema"]["primaryKey"] is None
    assert no_pk["schema"]["dataColumn"][-1] == {"name": ROW_ID, "type": "LONG"}
    types = {c["type"] for r in records if r["schema"]["dataColumn"]
             for c in r["schema"]["dataColumn"]}  # fmt: skip
    assert types == {"BOOLEAN", "DOUBLE", "LONG", "STRING", "DATE", "BYTES"}


def test_dataworks_split_updates_pair_by_sequence_id() -> None:
    records = _values(simulate_dataworks(CONFIG).messages)
    for i, r in enumerate(records):
        if r["payload"]["op"] == "UPDATE_BEFOR":
            nxt = records[i + 1]["payload"]
            assert nxt["op"] == "UPDATE_AFTER" and nxt["sequenceId"] == r["payload"]["sequenceId"]
            assert r["payload"]["after"] is None and nxt["before"] is None
    single = _values(simulate_dataworks(CONFIG, DataWorksOptions(update_mode="single")).messages)
    updates = [r["payload"] for r in single if r["payload"]["op"].startswith("UPDATE")]
    assert updates
    assert all(p["op"] == "UPDATE_AFTER" and p["before"] and p["after"] for p in updates)
    spelled = simulate_dataworks(CONFIG, DataWorksOptions(before_op="UPDATE_BEFORE"))
    assert "UPDATE_BEFORE" in {r["payload"]["op"] for r in _values(spelled.messages)}


def test_dataworks_sequence_ids_numeric_not_text_order() -> None:
    records = _values(simulate_dataworks(CONFIG).messages)
    seqs = [r["payload"]["sequenceId"] for r in records if r["payload"]["sequenceId"]]
    assert seqs[0] == "-1"  # the full load
    live = [s for s in seqs if s != "-1"]
    assert all(s.isdigit() and len(s) in (18, 19) for s in live)
    assert all(int(a) <= int(b) for a, b in zip(live, live[1:], strict=False))
    assert any(a > b for a, b in zip(live, live[1:], strict=False))  # as text: out of order
    assert sorted(live, key=int) != sorted(live)


def test_dataworks_heartbeats_track_progress() -> None:
    result = simulate_dataworks(CONFIG, DataWorksOptions(heartbeat_system_time=True))
    seen_event = -1
    for batch, heartbeats in zip(result.batches, result.heartbeats, strict=True):
        records = _values(batch)
        assert records[-1]["payload"]["op"] == "MHEARTBEAT"
        for r in records:
            ts = r["payload"]["timestamp"]
            if r["payload"]["op"] == "MHEARTBEAT":
                assert ts["eventTime"] >= seen_event and len(str(ts["eventTime"])) == 13
                assert ts["checkpointTime"] == ts["eventTime"] and "systemTime" in ts
            elif ts["eventTime"] != -1:
                seen_event = max(seen_event, ts["eventTime"])
        last = records[-1]["payload"]["timestamp"]
        hb = heartbeats[result.topic]
        assert (hb.event_time, hb.system_time, hb.checkpoint_time) == (
            last["eventTime"], last["systemTime"], last["checkpointTime"],
        )  # fmt: skip


def test_canal_shapes_and_values() -> None:
    result = simulate_canal(CONFIG)
    records = _values(result.messages)
    assert all(r.keys() == CANAL_KEYS for r in records)
    types = {r["type"] for r in records}
    assert types == {"INSERT", "UPDATE", "DELETE", "TRUNCATE", "CREATE", "ALTER"}
    assert all(r["isDdl"] == (r["type"] in ("CREATE", "ALTER", "TRUNCATE")) for r in records)
    dml = [r for r in records if not r["isDdl"]]
    values = [v for r in dml for row in r["data"] for v in row.values()]
    assert all(v is None or isinstance(v, str) for v in values)
    assert any(len(r["data"]) > 1 for r in dml if r["type"] == "UPDATE")
    assert any(len(r["data"]) > 1 for r in dml if r["type"] == "DELETE")
    olds = [o for r in dml if r["type"] == "UPDATE" for o in r["old"]]
    assert any(None in o.values() for o in olds)  # the old value was NULL
    assert all(len(o) < len(r["data"][0]) for r in dml if r["type"] == "UPDATE" for o in r["old"])
    assert {r["table"]: r["pkNames"] for r in dml} == {
        "items": ["id"], "accounts": ["region", "account_no"], "events": None,
    }  # fmt: skip
    es = [r["es"] for r in records]
    ts = [r["ts"] for r in records]
    assert es == sorted(es) and ts == sorted(ts) and len(set(es)) < len(es)
    assert all(e % 1000 == 0 for e in es) and len({r["id"] for r in records}) < len(records)
    alter = next(r for r in records if r["type"] == "ALTER")
    assert alter["sql"].startswith("ALTER TABLE `items` ADD COLUMN `note`")
    later = [r for r in dml[dml.index(next(r for r in dml if r["es"] >= alter["es"])) :]
             if r["table"] == "items"]  # fmt: skip
    assert later and all("note" in row for r in later for row in r["data"])


def test_workload_features() -> None:
    """Re-inserted keys, updates to null, identical rows in the table without a key, and
    rows last written before the ALTER lack the new column in the expected state."""
    result = simulate_canal(CONFIG)
    dml = [r for r in _values(result.messages) if not r["isDdl"]]
    inserted: Counter[str] = Counter(row["id"] for r in dml if r["table"] == "items"
                                     and r["type"] == "INSERT" for row in r["data"])  # fmt: skip
    assert max(inserted.values()) > 1
    assert any(v is None and o[c] is not None for r in dml if r["type"] == "UPDATE"
               for row, o in zip(r["data"], r["old"], strict=True)
               for c, v in row.items() if c in o)  # fmt: skip
    events = [json.dumps(row, sort_keys=True) for r in dml if r["table"] == "events"
              for row in r["data"] if r["type"] == "INSERT"]  # fmt: skip
    assert len(set(events)) < len(events)
    items = result.expected[-1]["simdb.items"].rows
    assert any("note" in row for row in items) and any("note" not in row for row in items)
    assert result.expected[-1]["simdb.events"].key_columns is None
    dw = simulate_dataworks(CONFIG)
    assert dw.key_columns == {
        "simdb.items": ["id"], "simdb.accounts": ["region", "account_no"], "simdb.events": [ROW_ID],
    }  # fmt: skip


def test_java_double_text() -> None:
    cases = [(1.0, "1.0"), (0.0, "0.0"), (-0.0, "-0.0"), (1e7, "1.0E7"), (5.17, "5.17"),
             (12345678.9, "1.23456789E7"), (0.0005, "5.0E-4"), (-2.5e-7, "-2.5E-7"),
             (1.5e20, "1.5E20"), (9999999.0, "9999999.0"), (0.001, "0.001")]  # fmt: skip
    assert [(v, java_double_text(v)) for v, _ in cases] == cases


def test_landing_and_expected_files(tmp_path: Path) -> None:
    result = simulate_dataworks(AlibabaSimConfig(seed=2, batches=2, transactions=10))
    for i, batch in enumerate(result.batches):
        paths = write_batch(batch, tmp_path / "landing", i)
        assert paths and all(p.exists() for p in paths)
    lines = [line for p in sorted((tmp_path / "landing").rglob("*.json"))
             for line in p.read_text().splitlines()]  # fmt: skip
    assert len(lines) == len(result.messages)
    path = write_expected_json(result.expected[-1], tmp_path / "expected.json")
    loaded = json.loads(path.read_text())
    assert loaded["simdb.items"]["key_columns"] == ["id"]
    assert loaded == json.loads(json.dumps(expected_to_jsonable(result.expected[-1])))


def test_fixture_key_sets_match_corpus(corpus_dir: Path) -> None:
    for name in ("event-insert.txt", "event-update-in-one.txt", "event-delete.txt"):
        text = (corpus_dir / "paimon__aliyun-dataworks-event" / name).read_text()
        r = json.loads(text.split("*/", 1)[1])
        assert r.keys() == DW_TOP and r["schema"].keys() == DW_SCHEMA
        assert r["schema"]["source"].keys() == DW_SOURCE
        assert (
            r["payload"].keys() == DW_PAYLOAD and r["payload"]["timestamp"].keys() == DW_TIMESTAMP
        )
    lines = (corpus_dir / "seatunnel__canal-data-filter-table.txt").read_text().splitlines()
    assert all(json.loads(line).keys() == CANAL_KEYS for line in lines)


def test_maxwell_deterministic_and_refuses_truncates() -> None:
    a, b = simulate_maxwell(MAXWELL), simulate_maxwell(MAXWELL)
    assert [(m.key, m.value) for m in a.messages] == [(m.key, m.value) for m in b.messages]
    assert [expected_to_jsonable(e) for e in a.expected] == [
        expected_to_jsonable(e) for e in b.expected
    ]
    with pytest.raises(ValueError, match="TRUNCATE"):
        simulate_maxwell(CONFIG)


def test_maxwell_shapes_keys_and_values() -> None:
    """Maxwell's documented shape: one message per row, xoffset on every row of a
    transaction but its last (commit), JSON-typed values, no primary_key_columns, the Kafka
    key's pk.* fields naming the row after the change (`_uuid` without a primary key), and
    DDL as table-create / table-alter."""
    result = simulate_maxwell(MAXWELL)
    messages = result.messages
    records = _values(messages)
    dml = [(m, r) for m, r in zip(messages, records, strict=True) if "xid" in r]
    assert {r["type"] for r in records} == {
        "insert", "update", "delete", "table-create", "table-alter",
    }  # fmt: skip
    for m, r in dml:
        extra = {"old"} if r["type"] == "update" else set()
        assert r.keys() == MAXWELL_KEYS | extra | ({"commit"} if r.get("commit") else {"xoffset"})
        assert r.get("commit") in (None, True) and isinstance(r["ts"], int) and r["ts"] < 10**10
        key = json.loads(str(m.key))
        assert list(key)[:2] == ["database", "table"]
        assert (key["database"], key["table"]) == (r["database"], r["table"])
        if r["table"] == "events":
            assert list(key) == ["database", "table", "_uuid"]
        else:
            columns = {"items": ["id"], "accounts": ["region", "account_no"]}[r["table"]]
            assert list(key)[2:] == [f"pk.{c}" for c in columns]
            assert all(key[f"pk.{c}"] == r["data"][c] for c in columns)
    # transactions: xoffset 0..n-2, then the commit row; xids increase
    by_xid: dict[int, list[dict]] = {}
    for _, r in dml:
        by_xid.setdefault(r["xid"], []).append(r)
    for rows in by_xid.values():
        assert [r.get("xoffset") for r in rows[:-1]] == list(range(len(rows) - 1))
        assert rows[-1]["commit"] is True and "xoffset" not in rows[-1]
    xids = [r["xid"] for _, r in dml]
    assert xids == sorted(xids) and any(len(rows) > 1 for rows in by_xid.values())
    # values: integers (tinyint(1) as 0/1), doubles as Java text, base64 bytes, text dates
    items = [r["data"] for _, r in dml if r["table"] == "items"]
    assert {type(i["id"]) for i in items} == {int}
    flags = {i["is_active"] for i in items}
    assert flags <= {0, 1, None} and {0, 1} <= flags
    assert any(isinstance(i["price"], float) for i in items)
    assert any("E" in str(m.value) and '"price":' in str(m.value) for m in messages)
    assert all(len(i["ship_date"]) == 10 for i in items if i["ship_date"] is not None)
    assert all(len(i["created_at"]) == 19 for i in items if i["created_at"] is not None)
    # key changes: old carries the previous id, the Kafka key names the new one
    changes = [(m, r) for m, r in dml if r["type"] == "update" and "id" in r.get("old", {})]
    assert len(changes) >= 3
    for m, r in changes:
        assert json.loads(str(m.key))["pk.id"] == r["data"]["id"] != r["old"]["id"]
    ddl = [r for r in records if "xid" not in r]
    assert [r["type"] for r in ddl] == ["table-create"] * 3 + ["table-alter"]
    alter = ddl[-1]
    assert alter["sql"].startswith("ALTER TABLE `items` ADD COLUMN `note`")
    assert [c["name"] for c in alter["def"]["columns"]][-1] == "note"
    assert "note" not in [c["name"] for c in alter["old"]["columns"]]
    assert all(m.key and not m.key.startswith("{") for m, r in zip(messages, records, strict=True)
               if "xid" not in r)  # fmt: skip
    assert result.key_columns == {
        "simdb.items": ["id"], "simdb.accounts": ["region", "account_no"], "simdb.events": None,
    }  # fmt: skip
