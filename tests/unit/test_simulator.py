"""Unit tests for workbench.simulator (no Spark).

The decoders and the replay below are written independently of the simulator so that
they check its output against the documented Debezium encodings.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import random
import re
from dataclasses import replace
from decimal import Decimal, localcontext
from pathlib import Path

import pytest
import yaml

from workbench.simulator import (
    FLAVOURS,
    TABLES,
    Message,
    SimConfig,
    SimResult,
    encode_decimal,
    simulate,
    write_batch,
    write_expected,
)

EPOCH = dt.datetime(1970, 1, 1)


# ----------------------------------------------------------------- decoders
def decode_decimal(text: str, scale: int) -> Decimal:
    unscaled = int.from_bytes(base64.b64decode(text, validate=True), "big", signed=True)
    with localcontext() as ctx:
        ctx.prec = 200
        return Decimal(unscaled).scaleb(-scale)


def _contract_encodings() -> dict[str, object]:
    """column -> meta.cdc_encoding of the silver YAML contract (how schemaless values are
    encoded), read from the project, not from the simulator."""
    path = (
        Path(__file__).resolve().parents[2]
        / "integration_tests/models/silver/inventory/_inventory__models.yml"
    )
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {
        c["name"]: c["meta"]["cdc_encoding"]
        for m in doc["models"]
        for c in m["columns"]
        if "cdc_encoding" in (c.get("meta") or {})
    }


CONTRACT_ENCODINGS = _contract_encodings()
_ZONED = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)")
_LITERAL = re.compile(r"-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?")


def parse_zoned(text: str) -> dt.datetime:
    """io.debezium.time.ZonedTimestamp text -> naive UTC datetime cut to microseconds."""
    m = _ZONED.fullmatch(text)
    assert m, text
    local = dt.datetime.fromisoformat(m.group(1))
    micros = int((m.group(2) or "").ljust(9, "0")) // 1000
    zone = m.group(3)
    offset = dt.timedelta(0)
    if zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        offset = sign * dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
    return local + dt.timedelta(microseconds=micros) - offset


def clock(micros: int) -> str:
    assert 0 <= micros < 86_400_000_000
    s, us = divmod(micros, 1_000_000)
    return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{us:06d}"


def semantic_of(col, flavour: str, field: dict | None) -> str | None:
    """The semantic type: the message schema's, else the contract's, else the flavour's default."""
    if field is not None:
        return field.get("name")
    declared = CONTRACT_ENCODINGS.get(col.name)
    if isinstance(declared, dict):
        return declared.get(flavour)
    if declared:
        return declared
    if col.type == "date":
        return "io.debezium.time.Timestamp" if flavour == "oracle" else "io.debezium.time.Date"
    return None


def decode_time_value(semantic: str | None, v: object) -> object:
    if semantic is None:  # Oracle: VARCHAR2 text
        assert isinstance(v, str) and re.fullmatch(r"\d\d:\d\d:\d\d\.\d{6}", v), v
        return v
    assert isinstance(v, int) and not isinstance(v, bool), v
    if semantic in ("io.debezium.time.Time", "org.apache.kafka.connect.data.Time"):
        return clock(v * 1000)
    if semantic == "io.debezium.time.MicroTime":
        return clock(v)
    assert semantic == "io.debezium.time.NanoTime", semantic
    return clock(v // 1000)


def decode_instant(semantic: str | None, v: object) -> dt.datetime:
    if isinstance(v, str):  # without a schema an ISO text is read as a ZonedTimestamp
        assert semantic in (None, "io.debezium.time.ZonedTimestamp"), semantic
        return parse_zoned(v)
    assert isinstance(v, int) and not isinstance(v, bool), v
    unit = {
        "io.debezium.time.Timestamp": 1000,
        "org.apache.kafka.connect.data.Timestamp": 1000,
        "io.debezium.time.MicroTimestamp": 1,
    }
    if semantic == "io.debezium.time.NanoTimestamp":
        return EPOCH + dt.timedelta(microseconds=v // 1000)
    return EPOCH + dt.timedelta(microseconds=v * unit[semantic])  # type: ignore[index]


def decode_decimal_value(col, v: object, field: dict | None) -> Decimal:
    if isinstance(v, float):  # decimal.handling.mode=double
        assert field is None or field["type"] == "float64"
        # How the consumer's JVM writes the double as text is not the emitter's business:
        # take that rule from the oracle (its own test is below).
        from workbench.simulator.expected import double_as_decimal

        return double_as_decimal(v, col.scale)
    assert isinstance(v, str)
    if field is not None and field["type"] == "bytes":
        assert field["parameters"]["scale"] == str(col.scale)
        return decode_decimal(v, col.scale)
    if field is not None or ("." in v or "-" in v) and _LITERAL.fullmatch(v):
        assert field is None or field["type"] == "string"
        value = Decimal(v)  # decimal.handling.mode=string: BigDecimal.toPlainString()
        assert value.as_tuple().exponent == -col.scale, v
        return value
    return decode_decimal(v, col.scale)


def decode_value(col, flavour: str, v: object, field: dict | None = None) -> object:
    if v is None:
        assert col.nullable, col.name
        return None
    t = col.type
    semantic = semantic_of(col, flavour, field)
    if t == "decimal":
        return decode_decimal_value(col, v, field)
    if t == "date":
        assert isinstance(v, int) and not isinstance(v, bool)
        if semantic in ("io.debezium.time.Timestamp", "org.apache.kafka.connect.data.Timestamp"):
            assert flavour == "oracle" and v % 86_400_000 == 0
            return dt.date(1970, 1, 1) + dt.timedelta(days=v // 86_400_000)
        assert semantic in ("io.debezium.time.Date", "org.apache.kafka.connect.data.Date")
        return dt.date(1970, 1, 1) + dt.timedelta(days=v)
    if t in ("timestamp", "timestamp_ns", "timestamp_tz"):
        return decode_instant(semantic, v)
    if t == "time":
        return decode_time_value(semantic, v)
    if t == "xml":
        assert semantic in (None, "io.debezium.data.Xml") and isinstance(v, str)
        assert v.startswith("<?xml") and v.endswith("</slip>")
        return v
    if t == "boolean":
        if flavour == "oracle":
            assert v in (0, 1) and not isinstance(v, bool)
            return bool(v)
        assert isinstance(v, bool)
        return v
    if t in ("int16", "int32", "int64"):
        bits = int(t[3:])
        assert isinstance(v, int) and not isinstance(v, bool)
        assert -(2 ** (bits - 1)) <= v < 2 ** (bits - 1)
        return v
    assert t == "string" and isinstance(v, str)
    return v


def column_name(name: str, flavour: str) -> str:
    return name if flavour == "sqlserver" else name.upper()


def decode_row(
    table: str, flavour: str, row: dict | None, fields: dict[str, dict] | None = None
) -> dict | None:
    """Decode a row image; ``fields``: the message schema's fields by name (None: no schema)."""
    if row is None:
        return None
    spec = TABLES[table]
    assert list(row) == [column_name(c.name, flavour) for c in spec.columns]
    out = {}
    for c in spec.columns:
        name = column_name(c.name, flavour)
        out[c.name] = decode_value(c, flavour, row[name], None if fields is None else fields[name])
    return out


def schema_fields(text: str) -> dict[str, dict] | None:
    doc = json.loads(text)
    if "schema" not in doc:
        return None
    [after] = [f for f in doc["schema"]["fields"] if f["field"] == "after"]
    return {f["field"]: f for f in after["fields"]}


def typed(state: dict) -> dict:
    """Compare values strictly: type and text (Decimal scale, bool vs int, date vs datetime)."""
    return {
        t: {k: {c: (type(v).__name__, str(v)) for c, v in row.items()} for k, row in rows.items()}
        for t, rows in state.items()
    }


def unwrap(text: str, schemas: bool) -> dict:
    doc = json.loads(text)
    if schemas:
        assert set(doc) == {"schema", "payload"}
        return doc["payload"]
    return doc


def position_key(flavour: str, source: dict) -> tuple:
    if flavour == "oracle":
        scn = int(source["scn"])
        commit = source["commit_scn"]
        return (int(commit) if commit is not None else scn, scn)
    commit_lsn = source["commit_lsn"]
    change_lsn = source["change_lsn"] or ""
    assert re.fullmatch(r"[0-9a-f]{8}:[0-9a-f]{8}:[0-9a-f]{4}", commit_lsn)
    if flavour == "sqlserver":
        serial = source["event_serial_no"]
        return (commit_lsn, change_lsn, int(serial) if serial is not None else 0)
    assert "event_serial_no" not in source
    return (commit_lsn, change_lsn)


def replay(messages: list[Message], result: SimResult, shuffle_seed: int | None = None) -> dict:
    """Independent replay ordered by source position only (shuffled: ties in random order).

    Events sharing a position (snapshot reads; the delete/insert halves of an Oracle
    primary-key change) touch different keys, so their relative order does not matter.
    """
    cfg = result.config
    table_of = {topic: table for table, topic in result.topics.items()}
    events = []
    for m in messages:
        if m.value is None:  # tombstone
            continue
        payload = unwrap(m.value, cfg.schemas_enable)
        payload["_fields"] = schema_fields(m.value)
        events.append((position_key(cfg.flavour, payload["source"]), m.offset, m.topic, payload))
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(events)
    events.sort(key=lambda e: e[0])
    state: dict = {t: {} for t in TABLES}
    for _, _, topic, payload in events:
        table = table_of[topic]
        spec = TABLES[table]
        op = payload["op"]
        if op == "t":
            state[table].clear()
            continue
        before = decode_row(table, cfg.flavour, payload["before"], payload["_fields"])
        after = decode_row(table, cfg.flavour, payload["after"], payload["_fields"])
        if op in ("r", "c", "u"):
            state[table][tuple(after[c] for c in spec.key)] = after
        elif op == "d":
            del state[table][tuple(before[c] for c in spec.key)]
        else:
            raise AssertionError(op)
    return state


# ------------------------------------------------------------------ fixtures
ALL_CONFIGS = [(f, s) for f in FLAVOURS for s in (False, True)]


@pytest.fixture(scope="module")
def results() -> dict[tuple[str, bool], SimResult]:
    return {
        (f, s): simulate(SimConfig(seed=7, flavour=f, schemas_enable=s, batches=3))
        for f, s in ALL_CONFIGS
    }


def payloads(result: SimResult) -> list[tuple[Message, dict | None]]:
    return [
        (m, None if m.value is None else unwrap(m.value, result.config.schemas_enable))
        for m in result.messages
    ]


# --------------------------------------------------------------------- tests
def test_deterministic() -> None:
    cfg = SimConfig(seed=3, flavour="sqlserver", schemas_enable=True)
    a, b = simulate(cfg), simulate(cfg)
    assert a.batches == b.batches
    assert a.expected == b.expected
    assert simulate(replace(cfg, seed=4)).batches != a.batches


@pytest.mark.parametrize(
    ("value", "scale", "expected"),
    [
        ("123.67", 2, "ME8="),
        ("0.00", 2, "AA=="),
        ("0", 0, "AA=="),
        ("-1", 0, "/w=="),
        ("127", 0, "fw=="),
        ("128", 0, "AIA="),
        ("-128", 0, "gA=="),
        ("-129", 0, "/38="),
        ("1.5", 2, "AJY="),
    ],
)
def test_decimal_known_encodings(value: str, scale: int, expected: str) -> None:
    assert encode_decimal(Decimal(value), scale) == expected
    assert decode_decimal(expected, scale) == Decimal(value)


def test_decimal_round_trip_wide() -> None:
    rng = random.Random(0)
    values = [
        ("9" * 38, 0),
        ("-" + "9" * 38, 0),
        ("9" * 36 + ".99", 2),
        ("-" + "9" * 28 + "." + "9" * 10, 10),
        ("-0.0001", 4),
        ("12345678901234.5678", 4),
    ]
    for _ in range(500):
        digits = rng.randint(1, 38)
        scale = rng.randint(0, digits)
        n = rng.randrange(10**digits) * rng.choice((1, -1))
        s = str(abs(n)).rjust(scale + 1, "0")
        text = ("-" if n < 0 else "") + (s[:-scale] + "." + s[-scale:] if scale else s)
        values.append((text, scale))
    for text, scale in values:
        encoded = encode_decimal(Decimal(text), scale)
        raw = base64.b64decode(encoded)
        # minimal two's complement: no redundant leading 0x00/0xff byte
        if len(raw) > 1:
            assert not (raw[0] == 0 and raw[1] < 0x80)
            assert not (raw[0] == 0xFF and raw[1] >= 0x80)
        decoded = decode_decimal(encoded, scale)
        assert decoded == Decimal(text)
        assert str(decoded) == str(Decimal(text))


def test_decimal_rejects_rounding() -> None:
    with pytest.raises(ValueError):
        encode_decimal(Decimal("1.005"), 2)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_all_ops_and_tombstones(results, flavour: str) -> None:
    result = results[(flavour, False)]
    ops: dict[str, int] = {}
    tombstones = 0
    for m, payload in payloads(result):
        if payload is None:
            tombstones += 1
            assert m.key is not None
            continue
        ops[payload["op"]] = ops.get(payload["op"], 0) + 1
        if payload["op"] == "t":
            assert m.key is None
            assert payload["before"] is None and payload["after"] is None
    assert set(ops) == {"r", "c", "u", "d", "t"}
    assert tombstones == ops["d"]
    # batch 0 contains a truncate
    first = [p for _, p in payloads(replace_batches(result, 1)) if p is not None]
    assert any(p["op"] == "t" for p in first)


def replace_batches(result: SimResult, n: int) -> SimResult:
    return SimResult(result.config, result.batches[:n], result.expected[:n], [], result.topics)


@pytest.mark.parametrize(("flavour", "schemas"), ALL_CONFIGS)
def test_replay_reproduces_expected(results, flavour: str, schemas: bool) -> None:
    result = results[(flavour, schemas)]
    assert len(result.batches) == len(result.expected) == 3
    for i in range(len(result.batches)):
        messages = [m for batch in result.batches[: i + 1] for m in batch]
        got = replay(messages, result, shuffle_seed=i)
        assert typed(got) == typed(result.expected[i])
        assert sum(len(rows) for rows in got.values()) > 0


@pytest.mark.parametrize(("flavour", "schemas"), ALL_CONFIGS)
def test_keys_and_offsets(results, flavour: str, schemas: bool) -> None:
    result = results[(flavour, schemas)]
    next_offset: dict[str, int] = {}
    table_of = {topic: table for table, topic in result.topics.items()}
    for m, payload in payloads(result):
        assert m.partition == 0
        assert m.offset == next_offset.get(m.topic, 0)
        next_offset[m.topic] = m.offset + 1
        if m.key is None:
            assert payload is not None and payload["op"] == "t"
            continue
        key = unwrap(m.key, schemas)
        spec = TABLES[table_of[m.topic]]
        assert list(key) == [column_name(c, flavour) for c in spec.key]
        if payload is not None:
            row = payload["after"] if payload["op"] != "d" else payload["before"]
            assert {k: row[k] for k in key} == key
            assert m.timestamp_ms == payload["ts_ms"] >= payload["source"]["ts_ms"]
    assert set(next_offset) == set(result.topics.values())


def test_topics_and_names() -> None:
    ora = simulate(SimConfig(seed=1, flavour="oracle", database="SIMDB1", server="sim1"))
    mss = simulate(SimConfig(seed=1, flavour="sqlserver", database="SIMDB1", server="sim1"))
    db2 = simulate(SimConfig(seed=1, flavour="db2", database="simdb1", server="sim1"))
    assert ora.topics["order_lines"] == "sim1.INVENTORY.ORDER_LINES"
    assert mss.topics["order_lines"] == "sim1.SIMDB1.inventory.order_lines"
    assert db2.topics["customers"] == "sim1.INVENTORY.CUSTOMERS"
    src = json.loads(db2.batches[0][0].value)["source"]
    assert (src["db"], src["schema"], src["table"], src["name"]) == (
        "SIMDB1",
        "INVENTORY",
        "CUSTOMERS",
        "sim1",
    )


def test_snapshot_markers(results) -> None:
    for (flavour, _), result in results.items():
        snap = [p for _, p in payloads(result) if p is not None and p["op"] == "r"]
        assert len(snap) == sum(result.config.initial_rows.values())
        assert [p["source"]["snapshot"] for p in snap] == ["true"] * (len(snap) - 1) + ["last"]
        assert all(p["transaction"] is None for p in snap)
        stream = [p for _, p in payloads(result) if p is not None and p["op"] != "r"]
        want = "false" if flavour == "sqlserver" else False
        assert all(
            p["source"]["snapshot"] is want or p["source"]["snapshot"] == want for p in stream
        )
        assert all(type(p["source"]["snapshot"]) is type(want) for p in stream)
        if flavour == "oracle":
            assert all(p["source"]["commit_scn"] is None for p in snap)
            assert len({p["source"]["scn"] for p in snap}) == 1


def test_oracle_scn_crosses_digit_boundary(results) -> None:
    result = results[("oracle", False)]
    scns = [int(p["source"]["scn"]) for _, p in payloads(result) if p is not None]
    assert min(scns) < 10_000_000 <= max(scns)
    texts = [p["source"]["scn"] for _, p in payloads(result) if p is not None]
    assert sorted(texts) != sorted(texts, key=int)  # lexicographic order would be wrong
    connectors = [p["source"].get("connector") for _, p in payloads(result) if p is not None]
    assert None in connectors and "oracle" in connectors


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_transactions_and_positions(results, flavour: str) -> None:
    result = results[(flavour, False)]
    by_tx: dict[str, list[dict]] = {}
    last = None
    for _, p in payloads(result):
        if p is None or p["op"] == "r":
            continue
        tx = p["transaction"]
        by_tx.setdefault(tx["id"], []).append(p)
        key = position_key(flavour, p["source"])
        assert last is None or key >= last  # emitted in commit order
        last = key
    assert len(by_tx) == 3 * result.config.transactions
    for events in by_tx.values():
        assert [e["transaction"]["total_order"] for e in events] == list(range(1, len(events) + 1))
        assert len({e["source"]["ts_ms"] for e in events}) == 1
        if flavour == "oracle":
            assert len({e["source"]["commit_scn"] for e in events}) == 1
            assert all(int(e["source"]["scn"]) <= int(e["source"]["commit_scn"]) for e in events)
        else:
            assert len({e["source"]["commit_lsn"] for e in events}) == 1
            assert all(e["source"]["change_lsn"] < e["source"]["commit_lsn"] for e in events)


def test_sqlserver_pk_change_shares_lsn(results) -> None:
    result = results[("sqlserver", False)]
    items = payloads(result)
    found = 0
    serial_types = set()
    for i, (_, p) in enumerate(items):
        if p is not None and p["op"] != "r":
            serial_types.add(type(p["source"]["event_serial_no"]))
        if p is None or p["op"] != "d" or i + 2 >= len(items):
            continue
        tomb, nxt = items[i + 1][1], items[i + 2][1]
        if (
            tomb is None
            and nxt is not None
            and nxt["op"] == "c"
            and nxt["source"]["change_lsn"] == p["source"]["change_lsn"]
        ):
            assert int(p["source"]["event_serial_no"]) == 1
            assert int(nxt["source"]["event_serial_no"]) == 2
            assert nxt["after"]["id"] != p["before"]["id"]
            assert {k: v for k, v in nxt["after"].items() if k != "id"} == {
                k: v for k, v in p["before"].items() if k != "id"
            }
            found += 1
    assert found > 0
    assert serial_types == {int, str}


def test_schema_wrapper(results) -> None:
    result = results[("oracle", True)]
    doc = json.loads(next(m.value for m in result.messages if m.value is not None))
    schema = doc["schema"]
    assert schema["name"] == "sim1.INVENTORY.CUSTOMERS.Envelope"
    before = {f["field"]: f for f in schema["fields"][0]["fields"]}
    assert before["BALANCE"]["name"] == "org.apache.kafka.connect.data.Decimal"
    assert before["BALANCE"]["parameters"] == {"scale": "2", "connect.decimal.precision": "12"}
    assert before["CREATED_AT"]["name"] == "io.debezium.time.MicroTimestamp"
    assert before["BIRTH_DATE"]["name"] == "io.debezium.time.Timestamp"
    assert before["IS_ACTIVE"]["type"] == "int16"
    assert before["EMAIL"]["optional"] is True and before["ID"]["optional"] is False
    key = json.loads(result.batches[0][0].key)
    assert key["schema"]["name"] == "sim1.INVENTORY.CUSTOMERS.Key"
    assert key["payload"] == {"ID": 1001}
    mss = simulate(SimConfig(seed=1, flavour="sqlserver", schemas_enable=True, batches=1))
    doc = json.loads(mss.batches[0][0].value)
    fields = {f["field"]: f for f in doc["schema"]["fields"][1]["fields"]}
    assert fields["birth_date"]["name"] == "io.debezium.time.Date"
    assert fields["birth_date"]["type"] == "int32"
    assert fields["is_active"]["type"] == "boolean"


def test_expected_value_types(results) -> None:
    """The expected state holds decoded values: what the pipeline's typed columns hold."""
    for (flavour, _), result in results.items():
        state = result.expected[-1]
        for table, rows in state.items():
            spec = TABLES[table]
            for key, row in rows.items():
                assert key == tuple(row[c] for c in spec.key)
                for col in spec.columns:
                    v = row[col.name]
                    if v is None:
                        assert col.nullable
                    elif col.type == "decimal":
                        assert v.as_tuple().exponent == -col.scale
                    elif col.type in ("timestamp", "timestamp_ns", "timestamp_tz"):
                        assert type(v) is dt.datetime and v.tzinfo is None
                        if col.type == "timestamp" and col.precision == 3:
                            assert v.microsecond % 1000 == 0
                        if col.type == "timestamp_ns" and flavour == "oracle":  # DATE
                            assert v.microsecond == 0
                    elif col.type == "time":
                        assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d{6}", v)
                        if flavour == "db2":  # Db2 TIME has whole seconds
                            assert v.endswith(".000000")
                    elif col.type == "date":
                        assert type(v) is dt.date
                        assert 1940 <= v.year <= 2010


def test_write_expected(tmp_path: Path, results) -> None:
    path = write_expected(results[("oracle", False)].expected[0], tmp_path / "exp.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) == set(TABLES)
    assert all(isinstance(r["created_at"], str) for r in data["customers"])


# ------------------------------------------------------------------ landing
def read_lines(path: Path) -> list[str]:
    raw = path.read_bytes()
    assert raw.endswith(b"\n") and b"\r\n" not in raw.replace(b"\\r\\n", b"")
    return raw.decode("utf-8").split("\n")[:-1]


def test_landing_value_lines(tmp_path: Path, results) -> None:
    result = results[("sqlserver", True)]
    files: list[Path] = []
    for i, batch in enumerate(result.batches):
        files += write_batch(batch, tmp_path, i, "value_lines")
    assert len(files) == len(set(files))
    lines_total = 0
    name = re.compile(r"(?P<topic>.+)\+(?P<p>\d+)\+(?P<off>\d{10})\.json")
    for f in files:
        m = name.fullmatch(f.name)
        assert m and f.parent.name == f"partition={m['p']}"
        assert f.parent.parent.name == m["topic"] and f.parent.parent.parent.name == "topics"
        for line in read_lines(f):
            doc = json.loads(line)
            assert doc is None or set(doc) == {"schema", "payload"}
            lines_total += 1
    assert lines_total == len(result.messages)
    # first file of a topic starts at offset 0, file for batch 1 at the next offset
    topic = result.topics["customers"]
    offsets = sorted(
        int(name.fullmatch(f.name)["off"]) for f in files if f.parent.parent.name == topic
    )
    assert offsets[0] == 0
    assert offsets[1] == sum(1 for m in result.batches[0] if m.topic == topic)


def test_landing_kcat(tmp_path: Path, results) -> None:
    result = results[("oracle", False)]
    paths = write_batch(result.batches[0], tmp_path, 0, "kcat")
    assert paths == [tmp_path / "kcat" / "batch-0000.jsonl"]
    records = [json.loads(line) for line in read_lines(paths[0])]
    assert len(records) == len(result.batches[0])
    for rec, m in zip(records, result.batches[0], strict=True):
        assert set(rec) == {
            "topic",
            "partition",
            "offset",
            "tstype",
            "ts",
            "broker",
            "key",
            "payload",
        }
        assert (rec["topic"], rec["partition"], rec["offset"], rec["ts"]) == (
            m.topic,
            m.partition,
            m.offset,
            m.timestamp_ms,
        )
        assert rec["key"] is None or isinstance(rec["key"], str)
        assert rec["payload"] is None or isinstance(json.loads(rec["payload"]), dict)
        assert rec["payload"] == m.value


def test_landing_perturbations(tmp_path: Path, results) -> None:
    result = results[("db2", False)]
    batch = result.batches[0]
    files = write_batch(batch, tmp_path / "v", 0, shuffle=True, duplicate_fraction=0.1, seed=5)
    replays = [f for f in files if f.name.endswith(".replay.json")]
    plain = [f for f in files if not f.name.endswith(".replay.json")]
    assert replays
    n_plain = sum(len(read_lines(f)) for f in plain)
    n_replay = sum(len(read_lines(f)) for f in replays)
    assert n_plain == len(batch)
    assert n_replay == round(len(batch) * 0.1)
    values = {m.value if m.value is not None else "null" for m in batch}
    assert all(line in values for f in replays for line in read_lines(f))
    # a replay file is a sink file: its name gives the offset of its first line, and its
    # lines are consecutive offsets, so lineage read off the name is the messages' own
    by_offset = {(m.topic, m.offset): m.value if m.value is not None else "null" for m in batch}
    for f in replays:
        topic, _, first = f.name.removesuffix(".replay.json").rsplit("+", 2)
        for i, line in enumerate(read_lines(f)):
            assert by_offset[(topic, int(first) + i)] == line, f.name
    again = write_batch(batch, tmp_path / "w", 0, shuffle=True, duplicate_fraction=0.1, seed=5)
    assert [f.read_bytes() for f in again] == [f.read_bytes() for f in files]
    kc = write_batch(batch, tmp_path / "k", 0, "kcat", shuffle=True, duplicate_fraction=0.1)
    recs = [json.loads(line) for line in read_lines(kc[0])]
    assert len(recs) == len(batch) + round(len(batch) * 0.1)
    pairs = {(r["topic"], r["offset"]) for r in recs}
    assert len(pairs) == len(batch)


def test_empty_strings_and_no_tombstones() -> None:
    def notes(flavour: str) -> list:
        result = simulate(SimConfig(seed=2, flavour=flavour, batches=2, tombstones=False))
        assert all(m.value is not None for m in result.messages)
        return [row["note"] for state in result.expected for row in state["orders"].values()]

    assert "" not in notes("oracle")  # Oracle stores '' as NULL
    assert "" in notes("sqlserver")


def test_cli(tmp_path: Path) -> None:
    from workbench.simulator.__main__ import main

    exp = tmp_path / "expected.json"
    args = ["--out", str(tmp_path / "o"), "--flavour", "all", "--format", "kcat"]
    assert main([*args, "--batches", "2", "--batch", "1", "--expected-json", str(exp)]) == 0
    assert [p.name for p in (tmp_path / "o" / "kcat").iterdir()] == ["batch-0001.jsonl"]
    topics = {
        json.loads(line)["topic"] for line in read_lines(tmp_path / "o/kcat/batch-0001.jsonl")
    }
    assert "sim1_mss.SIMDB1_MSS.inventory.orders" in topics
    assert "sim1_ora.INVENTORY.ORDERS" in topics
    data = json.loads(exp.read_text(encoding="utf-8"))["flavours"]
    assert set(data) == set(FLAVOURS)
    assert data["db2"]["database"] == "SIMDB1_DB2" and len(data["db2"]["batches"]) == 2
    assert main(["--out", str(tmp_path / "v"), "--schemas-enable", "--batches", "1"]) == 0
    assert list((tmp_path / "v" / "topics").iterdir())
    modes = ["--decimal-handling-mode", "string", "--time-precision-mode", "connect"]
    modes += ["--flavour", "sqlserver"]
    assert main(["--out", str(tmp_path / "m"), "--schemas-enable", "--batches", "1", *modes]) == 0
    lines = [
        json.loads(line)
        for f in sorted((tmp_path / "m" / "topics").rglob("*"))
        if f.is_file()
        for line in read_lines(f)
    ]
    names = {
        fld.get("name")
        for doc in lines
        if doc and "schema" in doc
        for part in doc["schema"]["fields"][:1]
        for fld in part["fields"]
    }
    assert "org.apache.kafka.connect.data.Time" in names
    assert "org.apache.kafka.connect.data.Decimal" not in names


# ------------------------------------------------- connector modes and encodings
MODE_CONFIGS = [
    # (flavour, schemas_enable, decimal.handling.mode, time.precision.mode)
    ("oracle", False, "double", "adaptive"),
    ("oracle", True, "string", "connect"),
    ("sqlserver", False, "string", "adaptive"),
    ("sqlserver", True, "double", "connect"),
    ("db2", False, "double", "adaptive"),
    ("db2", True, "string", "connect"),
]


@pytest.mark.parametrize(("flavour", "schemas", "decimals", "times"), MODE_CONFIGS)
def test_replay_reproduces_expected_in_every_mode(
    flavour: str, schemas: bool, decimals: str, times: str
) -> None:
    cfg = SimConfig(
        seed=21,
        flavour=flavour,
        schemas_enable=schemas,
        batches=2,
        decimal_handling_mode=decimals,
        time_precision_mode=times,
    )
    result = simulate(cfg)
    for i in range(len(result.batches)):
        messages = [m for batch in result.batches[: i + 1] for m in batch]
        assert typed(replay(messages, result, shuffle_seed=i)) == typed(result.expected[i])


def _after_schema_names(cfg: SimConfig, table: str) -> dict[str, tuple[str, str | None]]:
    result = simulate(replace(cfg, batches=1, transactions=0))
    topic = result.topics[table]
    value = next(m.value for m in result.messages if m.topic == topic and m.value)
    fields = schema_fields(value)
    assert fields is not None
    return {name.lower(): (f["type"], f.get("name")) for name, f in fields.items()}


def test_every_encoding_of_the_table_is_emitted() -> None:
    """Each row of ENVELOPES.md §1's encoding table is produced by some flavour and mode."""
    seen: set[tuple[str, str | None]] = set()
    for flavour in FLAVOURS:
        for decimals in ("precise", "double", "string"):
            for times in ("adaptive", "connect"):
                cfg = SimConfig(
                    flavour=flavour,
                    schemas_enable=True,
                    decimal_handling_mode=decimals,
                    time_precision_mode=times,
                )
                for table in TABLES:
                    seen |= set(_after_schema_names(cfg, table).values())
    wanted = {
        ("string", "io.debezium.data.Xml"),
        ("string", "io.debezium.time.ZonedTimestamp"),
        ("int32", "io.debezium.time.Date"),
        ("int32", "io.debezium.time.Time"),
        ("int64", "io.debezium.time.MicroTime"),
        ("int64", "io.debezium.time.NanoTime"),
        ("int64", "io.debezium.time.Timestamp"),
        ("int64", "io.debezium.time.MicroTimestamp"),
        ("int64", "io.debezium.time.NanoTimestamp"),
        ("int32", "org.apache.kafka.connect.data.Date"),
        ("int64", "org.apache.kafka.connect.data.Time"),
        ("int64", "org.apache.kafka.connect.data.Timestamp"),
        ("bytes", "org.apache.kafka.connect.data.Decimal"),
        ("float64", None),
        ("string", None),
        ("boolean", None),
        ("int16", None),
        ("int32", None),
        ("int64", None),
    }
    assert wanted <= seen, wanted - seen


def test_realistic_types_per_flavour() -> None:
    ora = _after_schema_names(SimConfig(flavour="oracle", schemas_enable=True), "orders")
    mss = _after_schema_names(SimConfig(flavour="sqlserver", schemas_enable=True), "orders")
    db2 = _after_schema_names(SimConfig(flavour="db2", schemas_enable=True), "orders")
    assert ora["shipped_at"] == ("int64", "io.debezium.time.Timestamp")  # DATE
    assert mss["shipped_at"] == ("int64", "io.debezium.time.NanoTimestamp")  # DATETIME2(7)
    assert db2["shipped_at"] == ("int64", "io.debezium.time.MicroTimestamp")  # TIMESTAMP(6)
    assert ora["promised_time"] == ("string", None)  # no TIME type
    assert mss["promised_time"] == ("int64", "io.debezium.time.MicroTime")  # TIME(6)
    assert db2["promised_time"] == ("int32", "io.debezium.time.Time")
    assert {f["packing_slip"] for f in (ora, mss, db2)} == {("string", "io.debezium.data.Xml")}
    mss_c = _after_schema_names(SimConfig(flavour="sqlserver", schemas_enable=True), "customers")
    db2_c = _after_schema_names(SimConfig(flavour="db2", schemas_enable=True), "customers")
    assert mss_c["contact_time"] == ("int64", "io.debezium.time.NanoTime")  # TIME(7)
    assert mss_c["last_seen_at"] == ("string", "io.debezium.time.ZonedTimestamp")
    assert db2_c["last_seen_at"] == ("int64", "io.debezium.time.NanoTimestamp")
    connect = SimConfig(flavour="sqlserver", schemas_enable=True, time_precision_mode="connect")
    mss_k = _after_schema_names(connect, "customers")
    assert mss_k["contact_time"] == ("int64", "org.apache.kafka.connect.data.Time")
    assert mss_k["birth_date"] == ("int32", "org.apache.kafka.connect.data.Date")
    assert mss_k["created_at"] == ("int64", "org.apache.kafka.connect.data.Timestamp")
    assert mss_k["last_seen_at"] == ("string", "io.debezium.time.ZonedTimestamp")


def test_connect_mode_needs_the_schema() -> None:
    with pytest.raises(ValueError, match="schemas_enable"):
        SimConfig(time_precision_mode="connect")
    with pytest.raises(ValueError):
        SimConfig(decimal_handling_mode="exact")


def test_negative_38_digit_decimal_round_trip() -> None:
    for text in ("-" + "9" * 29 + "." + "9" * 9, "-0.000000001", "-1" + "0" * 28 + ".000000000"):
        encoded = encode_decimal(Decimal(text), 9)
        assert base64.b64decode(encoded)[0] >= 0x80  # the sign bit is set
        assert decode_decimal(encoded, 9) == Decimal(text)
    assert (
        encode_decimal(Decimal("-" + "9" * 38), 0)
        == base64.b64encode((-(10**38) + 1).to_bytes(16, "big", signed=True)).decode()
    )


@pytest.mark.parametrize(
    ("double_text", "java_major", "read_back"),
    [
        # observed: Spark 4 on JDK 17 reads the JSON number as Double.toString's text
        ("-1.48339557563187e+18", 17, "-1483395575631869950"),
        ("6.85182716473237e+17", 17, "685182716473236990"),
        ("1.5182228535886646e+17", 17, "151822285358866464"),
        ("-1.48339557563187e+18", 21, "-1483395575631870000"),
        ("12345.6789", 17, "12345.6789"),
        ("9007199254740991.0", 17, "9007199254740991"),
    ],
)
def test_double_read_back_by_the_jvm(double_text: str, java_major: int, read_back: str) -> None:
    from workbench.simulator.expected import jvm_double_text_value

    assert jvm_double_text_value(float(double_text), java_major) == Decimal(read_back)


def test_decimal_double_and_string_modes() -> None:
    from workbench.simulator import consumer_value
    from workbench.simulator.debezium import decimal_double, decimal_plain

    col = TABLES["orders"].column("ledger_amount")
    value = Decimal("-12345678901234567890.123456789")
    assert decimal_plain(value) == "-12345678901234567890.123456789"
    assert decimal_plain(Decimal("0E-9")) == "0.000000000"
    assert decimal_double(value) == -1.2345678901234567e19
    double = SimConfig(decimal_handling_mode="double")
    assert consumer_value(col, value, double) == Decimal("-12345678901234567000.000000000")
    small = Decimal("-1234.500000000")  # fewer than 16 digits: the double keeps it exactly
    assert consumer_value(col, small, double) == small
    assert consumer_value(col, value, SimConfig(decimal_handling_mode="string")) == value


@pytest.mark.parametrize(
    ("ns", "offset", "text"),
    [
        (0, 0, "1970-01-01T00:00:00Z"),
        (1_529_507_596_945_104_700, 0, "2018-06-20T15:13:16.9451047Z"),
        (1_529_507_596_945_104_700, 330, "2018-06-20T20:43:16.9451047+05:30"),
        (1_529_507_596_100_000_000, -720, "2018-06-20T03:13:16.1-12:00"),
        (1_529_539_200_000_000_001, 840, "2018-06-21T14:00:00.000000001+14:00"),
        (1_529_539_200_000_000_000, -570, "2018-06-20T14:30:00-09:30"),
    ],
)
def test_zoned_timestamp_offsets(ns: int, offset: int, text: str) -> None:
    from workbench.simulator import ZonedValue, consumer_value
    from workbench.simulator.debezium import zoned_text

    assert zoned_text(ZonedValue(ns, offset)) == text
    assert parse_zoned(text) == EPOCH + dt.timedelta(microseconds=ns // 1000)
    col = TABLES["customers"].column("last_seen_at")
    for flavour in ("oracle", "sqlserver"):
        got = consumer_value(col, ZonedValue(ns, offset), SimConfig(flavour=flavour))
        assert got == parse_zoned(text)


def test_time_of_day_encodings() -> None:
    from workbench.simulator import column_encoding, consumer_value
    from workbench.simulator.debezium import time_text

    last = 86_399_999_999_900  # 23:59:59.9999999, TIME(7)
    col = TABLES["customers"].column("contact_time")
    nano = column_encoding(col, SimConfig(flavour="sqlserver"))
    assert (nano.name, nano.encoder(last)) == ("io.debezium.time.NanoTime", last)
    assert consumer_value(col, last, SimConfig(flavour="sqlserver")) == "23:59:59.999999"
    micro = column_encoding(
        TABLES["orders"].column("promised_time"), SimConfig(flavour="sqlserver")
    )
    assert (micro.name, micro.encoder(last - 900)) == ("io.debezium.time.MicroTime", 86_399_999_999)
    milli = column_encoding(col, SimConfig(flavour="db2"))
    assert (milli.name, milli.encoder(45_296_000_000_000)) == ("io.debezium.time.Time", 45_296_000)
    connect = SimConfig(flavour="sqlserver", schemas_enable=True, time_precision_mode="connect")
    kafka = column_encoding(col, connect)
    assert (kafka.name, kafka.encoder(last)) == ("org.apache.kafka.connect.data.Time", 86_399_999)
    assert consumer_value(col, last, connect) == "23:59:59.999000"
    assert time_text(45_296_789_012_300) == "12:34:56.789012"
    assert column_encoding(col, SimConfig(flavour="oracle")).name is None  # VARCHAR2 text


def test_nano_timestamp_and_oracle_date() -> None:
    from workbench.simulator import column_encoding, consumer_value

    col = TABLES["orders"].column("shipped_at")
    ns = 1_529_507_596_945_104_700
    mss = column_encoding(col, SimConfig(flavour="sqlserver"))
    assert (mss.name, mss.encoder(ns)) == ("io.debezium.time.NanoTimestamp", ns)
    assert consumer_value(col, ns, SimConfig(flavour="sqlserver")) == dt.datetime(
        2018, 6, 20, 15, 13, 16, 945104
    )
    ora = column_encoding(col, SimConfig(flavour="oracle"))
    assert (ora.name, ora.encoder(1_529_507_596_000_000_000)) == (
        "io.debezium.time.Timestamp",
        1_529_507_596_000,
    )
