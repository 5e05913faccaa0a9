"""Unit tests for the MongoDB simulator (no Spark).

The reference consumer below is written independently of the simulator: it parses the
emitted extended JSON itself, applies ``$set``/``$unset`` dotted paths, v2 diffs,
``updateDescription`` and replacements onto plain JSON documents, and must reach the
oracle's state, which the simulator keeps by executing the operations on Python documents.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from workbench.simulator.landing import write_batch
from workbench.simulator.mongodb import (
    MongoSimConfig,
    MongoSimResult,
    main,
    simulate_mongodb,
    write_mongo_expected,
)
from workbench.simulator.mongodb_values import (
    Binary,
    Date,
    Decimal128,
    Int64,
    ObjectId,
    ext_json,
    key_text,
    normal_form,
)

Doc = dict[str, object]

BASE = MongoSimConfig(seed=7, transactions=60, batches=3, v2_patch_fraction=0.3)
CONFIGS = {
    "oplog": BASE,
    "oplog_schemas_no_tombstones": replace(BASE, schemas_enable=True, tombstones=False),
    "change_streams_full": replace(BASE, generation="change_streams"),
    "change_streams_description_only": replace(
        BASE, generation="change_streams", full_document=False, schemas_enable=True
    ),
    "oplog_redelivery": replace(BASE, seed=11, redeliver_fraction=0.2),
    "change_streams_redelivery": replace(
        BASE, seed=12, generation="change_streams", full_document=False, redeliver_fraction=0.3
    ),
    "oplog_mid_stream": replace(BASE, seed=13, capture_starts_after=40),
    "change_streams_mid_stream": replace(
        BASE, seed=14, generation="change_streams", full_document=False, capture_starts_after=45
    ),
}


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def run(request: pytest.FixtureRequest) -> MongoSimResult:
    return simulate_mongodb(CONFIGS[request.param])


# --------------------------------------------------------- reference consumer
def _payload(text: str | None) -> Doc | None:
    if text is None:
        return None
    doc = json.loads(text)
    return doc["payload"] if isinstance(doc, dict) and "schema" in doc else doc


def _iso_ms(text: str) -> int:
    moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return round(moment.timestamp() * 1000)


def norm(v: object) -> object:
    """Extended JSON (legacy, canonical or relaxed) -> normal-form JSON structure."""
    if isinstance(v, list):
        return [norm(x) for x in v]
    if not isinstance(v, dict):
        return v
    if set(v) == {"$binary", "$type"}:
        return {"$binary": {"base64": v["$binary"], "subType": v["$type"]}}
    if len(v) == 1:
        ((k, x),) = v.items()
        if k == "$numberInt":
            return int(x)
        if k == "$numberDouble":
            return float(x)
        if k == "$numberLong":
            return {"$numberLong": str(x)}
        if k == "$date":
            if isinstance(x, dict):
                return {"$date": int(x["$numberLong"])}
            return {"$date": _iso_ms(x) if isinstance(x, str) else x}
        if k in ("$oid", "$numberDecimal", "$binary"):
            return {k: x}
    return {k: norm(x) for k, x in v.items()}


def text(v: object) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def key_of(id_value: object) -> str:
    if isinstance(id_value, dict) and "$numberLong" in id_value:
        id_value = int(id_value["$numberLong"])  # type: ignore[arg-type]
    return json.dumps({"_id": id_value}, sort_keys=True, separators=(",", ":"))


def _step(node: object, part: str) -> object:
    if isinstance(node, list):
        i = int(part)
        while len(node) <= i:
            node.append(None)
        if node[i] is None:
            node[i] = {}
        return node[i]
    assert isinstance(node, dict)
    return node.setdefault(part, {})


def _put(node: object, part: str, value: object) -> None:
    if isinstance(node, list):
        i = int(part)
        while len(node) < i:
            node.append(None)
        if i == len(node):
            node.append(value)
        else:
            node[i] = value
    else:
        assert isinstance(node, dict)
        node[part] = value


def set_path(doc: Doc, path: str, value: object) -> None:
    parts = path.split(".")
    node: object = doc
    for part in parts[:-1]:
        node = _step(node, part)
    _put(node, parts[-1], value)


def _lookup(doc: Doc, parts: list[str]) -> object:
    node: object = doc
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def unset_path(doc: Doc, path: str) -> None:
    parts = path.split(".")
    parent = _lookup(doc, parts[:-1])
    if isinstance(parent, dict):
        parent.pop(parts[-1], None)


def truncate_path(doc: Doc, path: str, size: int) -> None:
    target = _lookup(doc, path.split("."))
    if isinstance(target, list):
        del target[size:]


def _sub_diff(node: object, part: str, diff: Doc) -> None:
    """A sub-diff into a missing field creates it only if it sets something there
    (``$set`` semantics on a partial document; deletes and truncations of nothing are no-ops)."""
    missing = _lookup(node, [part]) is None  # type: ignore[arg-type]
    child = _step(node, part)
    apply_diff(child, diff)
    if missing and child == {} and isinstance(node, dict):
        del node[part]


def apply_diff(node: object, diff: Doc) -> None:
    """MongoDB 5+ ``$v: 2`` oplog diff."""
    if diff.get("a") is True:
        if isinstance(node, list) and "l" in diff:
            del node[diff["l"] :]  # type: ignore[misc]
        for k, v in diff.items():
            if k in ("a", "l"):
                continue
            if k[0] == "u":
                _put(node, k[1:], norm(v))
            elif k[0] == "s":
                _sub_diff(node, k[1:], v)  # type: ignore[arg-type]
        return
    assert isinstance(node, dict)
    for f in diff.get("d", {}):
        node.pop(f, None)
    for f, v in {**diff.get("u", {}), **diff.get("i", {})}.items():
        node[f] = norm(v)
    for k, v in diff.items():
        if k.startswith("s"):
            _sub_diff(node, k[1:], v)


class Consumer:
    """Keeps each document as parsed JSON; applies events in source order."""

    def __init__(self) -> None:
        self.state: dict[str, dict[str, Doc]] = {}
        self.seen: set[tuple[str, str]] = set()
        self.counts: Counter[str] = Counter()

    def replay(self, messages: list[tuple[str, str | None, str | None]], db: str) -> None:
        events = []
        for i, (topic, key, value) in enumerate(messages):
            if value is None or (topic, value) in self.seen:
                continue  # tombstone / redelivered copy
            self.seen.add((topic, value))
            p = _payload(value)
            assert p is not None
            events.append(((p["source"]["ts_ms"], p["source"]["ord"], i), topic, key, p))
        for _, topic, key, p in sorted(events, key=lambda e: e[0]):
            assert topic.endswith(f".{db}.{p['source']['collection']}")
            table = self.state.setdefault(f"{db}.{p['source']['collection']}", {})
            id_value = norm(json.loads(_payload(key)["id"]))  # type: ignore[index]
            self.apply(table, key_of(id_value), id_value, p)

    def apply(self, table: dict[str, Doc], k: str, id_value: object, p: Doc) -> None:
        op = p["op"]
        if op == "d":
            table.pop(k, None)
            return
        if p.get("after") is not None:
            table[k] = norm(json.loads(p["after"]))  # type: ignore[assignment]
            self.counts["after"] += 1
            return
        doc = table.setdefault(k, {"_id": id_value})
        if "patch" in p:  # oplog era
            patch = json.loads(p["patch"])
            if not any(f.startswith("$") for f in patch):
                table[k] = norm(patch)  # type: ignore[assignment]
                self.counts["replacement"] += 1
            elif patch.get("$v") == 2:
                apply_diff(doc, patch["diff"])
                self.counts["v2"] += 1
            else:
                for path, v in patch.get("$set", {}).items():
                    set_path(doc, path, norm(v))
                for path in patch.get("$unset", {}):
                    unset_path(doc, path)
                self.counts["v1" if "$v" in patch else "v1_no_version"] += 1
            return
        desc = p["updateDescription"]
        for t in desc["truncatedArrays"] or []:
            truncate_path(doc, t["field"], t["size"])
        for path, v in json.loads(desc["updatedFields"] or "{}").items():
            set_path(doc, path, norm(v))
        for path in desc["removedFields"] or []:
            unset_path(doc, path)
        self.counts["update_description"] += 1

    def texts(self) -> dict[str, dict[str, str]]:
        return {t: {k: text(d) for k, d in sorted(docs.items())} for t, docs in self.state.items()}


def _triples(batch: list) -> list[tuple[str, str | None, str | None]]:
    return [(m.topic, m.key, m.value) for m in batch]


# --------------------------------------------------------------------- tests
def test_replay_reaches_the_oracle(run: MongoSimResult) -> None:
    """The emitted patches describe the changes: replaying them gives the source state."""
    consumer = Consumer()
    for index, batch in enumerate(run.batches):
        consumer.replay(_triples(batch), run.config.database)
        got = consumer.texts()
        want = run.expected_visible[index]
        for ns in want:
            assert got.get(ns, {}) == want[ns], (ns, index)
        if run.config.capture_starts_after == 0:
            assert run.expected_visible[index] == run.expected[index]
            assert not any(run.expected_partial[index].values())
    if run.config.capture_starts_after:
        assert any(run.expected_partial[0].values())
        for ns, docs in run.expected_partial[-1].items():
            assert set(docs) <= set(run.expected[-1][ns])


def test_determinism() -> None:
    def dump(r: MongoSimResult) -> list[tuple]:
        return [
            (m.topic, m.partition, m.offset, m.key, m.value, m.timestamp_ms) for m in r.messages
        ]

    a, b = simulate_mongodb(CONFIGS["oplog"]), simulate_mongodb(CONFIGS["oplog"])
    assert dump(a) == dump(b) and a.expected == b.expected
    c = simulate_mongodb(replace(CONFIGS["oplog"], seed=8))
    assert dump(a) != dump(c)
    # The workload does not depend on the generation: same source operations.
    d = simulate_mongodb(replace(CONFIGS["oplog"], generation="change_streams"))
    assert a.expected == d.expected


def test_every_operation_and_patch_form_appears() -> None:
    result = simulate_mongodb(CONFIGS["oplog"])
    ops = Counter(op.kind for batch in result.ops for op in batch)
    assert set(ops) == {"read", "insert", "reinsert", "update", "replace", "delete"}, ops
    labels = Counter(m.label for batch in result.ops for op in batch for m in op.mods)
    assert set(labels) == {
        "set_top",
        "set_new_field",
        "set_nested",
        "set_array_element",
        "append_array",
        "truncate_array",
        "unset",
    }, labels
    patches = [p["patch"] for m in result.messages if (p := _payload(m.value)) and p["patch"]]
    forms: Counter[str] = Counter()
    for raw in patches:
        patch = json.loads(raw)
        if patch.get("$v") == 2:
            forms["v2"] += 1
            diff = json.dumps(patch["diff"])
            for marker in ('"a": true', '"l": ', '"d": {', '"i": {', '"u": {', '"s'):
                forms[f"v2 {marker}"] += marker in diff
        elif "$set" in patch or "$unset" in patch:
            forms["v1 $v" if "$v" in patch else "v1"] += 1
            forms["$unset"] += "$unset" in patch
            forms["dotted"] += any("." in f for f in patch.get("$set", {}))
        else:
            forms["replacement"] += 1
            assert "_id" in patch
    assert all(forms[f] > 0 for f in ("v2", "v1 $v", "v1", "$unset", "dotted", "replacement"))
    assert all(v > 0 for k, v in forms.items() if k.startswith("v2 ")), forms
    assert any('"u2": ' in p or '"s2": ' in p for p in patches if '"$v": 2' in p)


def test_change_stream_update_descriptions() -> None:
    result = simulate_mongodb(CONFIGS["change_streams_description_only"])
    descs = [p["updateDescription"] for m in result.messages if (p := _payload(m.value))]
    descs = [d for d in descs if d is not None]
    assert any(d["removedFields"] for d in descs)
    assert any(d["truncatedArrays"] for d in descs)
    assert any(d["updatedFields"] and "." in d["updatedFields"] for d in descs)
    payloads = [p for m in result.messages if (p := _payload(m.value))]
    values = " ".join(p["after"] or "" for p in payloads)
    values += " ".join(d["updatedFields"] or "" for d in descs)
    for form in (
        '{"$numberInt": ',
        '{"$numberDouble": ',
        '{"$date": {"$numberLong": ',
        '"subType"',
    ):
        assert form in values, form
    assert '{"$date": "' in values and '"$type"' in values  # relaxed ISO and legacy forms


def test_message_shapes_match_the_corpus(corpus_dir: Path) -> None:
    oplog_line = corpus_dir / "zeromicro-cds__debezium-mongodb-oplog-patch-filter.jsonl"
    real_oplog = json.loads(oplog_line.read_text().splitlines()[0])
    stream_lines = (corpus_dir / "paimon__debezium-bson-event" / "event-insert.txt").read_text()
    real_stream = json.loads([ln for ln in stream_lines.splitlines() if '"source"' in ln][0])
    cases = [
        (CONFIGS["oplog_schemas_no_tombstones"], real_oplog["payload"]),
        (CONFIGS["change_streams_full"], real_stream),
    ]
    for config, real in cases:
        for m in simulate_mongodb(replace(config, batches=1)).messages:
            p = _payload(m.value)
            if p is None:
                continue
            assert list(p) == list(real), config.generation
            assert list(p["source"]) == list(real["source"]), config.generation
            assert p["source"]["connector"] == "mongodb"
    with_schema = replace(CONFIGS["oplog"], batches=1, schemas_enable=True)
    schema = json.loads(simulate_mongodb(with_schema).messages[0].value or "")["schema"]
    names = [f["field"] for f in schema["fields"]]
    assert names == [f["field"] for f in real_oplog["schema"]["fields"]]
    source = next(f for f in schema["fields"] if f["field"] == "source")
    assert [f["field"] for f in source["fields"]] == list(real_oplog["payload"]["source"])


def test_keys() -> None:
    result = simulate_mongodb(CONFIGS["oplog_schemas_no_tombstones"])
    m = result.messages[0]
    key = json.loads(m.key)
    assert key["schema"] == {
        "type": "struct",
        "fields": [{"type": "string", "optional": False, "field": "id"}],
        "optional": False,
        "name": f"{m.topic}.Key",
    }
    assert set(key["payload"]) == {"id"}
    plain = simulate_mongodb(replace(CONFIGS["oplog"], batches=1)).messages[0]
    assert set(json.loads(plain.key)) == {"id"}


def test_positions_increase_and_redeliveries_repeat() -> None:
    result = simulate_mongodb(CONFIGS["oplog_redelivery"])
    originals: dict[tuple[str, str | None], int] = {}
    last: tuple[int, int] | None = None
    snapshot_position = None
    redelivered_count = 0
    for batch, redelivered in zip(result.batches, result.redelivered, strict=True):
        again = set(redelivered)
        for m in batch:
            if (m.topic, m.offset) in again:
                redelivered_count += 1
                assert (m.topic, m.value) in originals  # identical to an earlier message
                continue
            originals[(m.topic, m.value)] = m.offset
            p = _payload(m.value)
            if p is None:
                continue
            pos = (p["source"]["ts_ms"], p["source"]["ord"])
            assert p["source"]["ts_ms"] % 1000 == 0
            if p["op"] == "r":  # snapshot reads share the position the snapshot started at
                assert snapshot_position in (None, pos)
                snapshot_position = pos
                continue
            assert last is None or pos > last, (last, pos)
            assert snapshot_position is None or pos > snapshot_position
            last = pos
    assert redelivered_count > 0
    offsets: dict[str, list[int]] = {}
    for m in result.messages:
        offsets.setdefault(m.topic, []).append(m.offset)
    assert all(v == list(range(len(v))) for v in offsets.values())


def test_expected_sizes_follow_deletes_and_reinserts() -> None:
    result = simulate_mongodb(CONFIGS["oplog"])
    sizes = dict.fromkeys(result.namespaces.values(), 0)
    for index, ops in enumerate(result.ops):
        for op in ops:
            delta = {"read": 1, "insert": 1, "reinsert": 1, "delete": -1}.get(op.kind, 0)
            sizes[result.namespaces[op.collection]] += delta
        assert {ns: len(d) for ns, d in result.expected[index].items()} == sizes
    reinserted = {
        (op.collection, op.key) for ops in result.ops for op in ops if op.kind == "reinsert"
    }
    deleted = {(op.collection, op.key) for ops in result.ops for op in ops if op.kind == "delete"}
    assert reinserted and reinserted <= deleted


def test_id_types_and_normal_form() -> None:
    result = simulate_mongodb(CONFIGS["oplog"])
    types = {type(op.doc_id).__name__ for ops in result.ops for op in ops}
    assert types == {"ObjectId", "int", "Int64", "str"}
    keys = [k for docs in result.expected[-1].values() for k in docs]
    assert any(k.startswith('{"_id":{"$oid":"') for k in keys)
    assert any(k.startswith('{"_id":"') for k in keys)
    assert any(k[7:-1].isdigit() for k in keys)
    assert key_text(Int64(1004)) == '{"_id":1004}' == key_text(1004) == key_text(1004.0)
    assert (
        key_text(ObjectId("5eb626b3452cd570b405bf7d"))
        == '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"}}'
    )
    doc = {
        "_id": "a",
        "n": 5,
        "l": Int64(7),
        "d": 2.0,
        "m": Decimal128("1.50"),
        "t": Date(1533868558652),
        "b": Binary(b"\x00\x01", 0),
        "x": None,
        "y": [True, {"z": 0.5}],
    }
    assert normal_form(doc) == (
        '{"_id":"a","n":5,"l":{"$numberLong":"7"},"d":2.0,"m":{"$numberDecimal":"1.50"},'
        '"t":{"$date":1533868558652},"b":{"$binary":{"base64":"AAE=","subType":"00"}},'
        '"x":null,"y":[true,{"z":0.5}]}'
    )
    assert ext_json(Date(1704164645678), "relaxed") == '{"$date": "2024-01-02T03:04:05.678Z"}'
    assert ext_json(doc["b"], "legacy") == '{"$binary": "AAE=", "$type": "00"}'
    all_docs = " ".join(t for docs in result.expected[-1].values() for t in docs.values())
    for form in ('{"$numberLong":"', '{"$numberDecimal":"', '{"$date":', '{"$binary":{"base64"'):
        assert form in all_docs
    assert ".0," in all_docs or ".0}" in all_docs  # integer-valued doubles keep a fraction


@pytest.mark.parametrize(
    "bad",
    [
        {"generation": "binlog"},
        {"redeliver_fraction": 1.5},
        {"v2_patch_fraction": -0.1},
        {"capture_starts_after": -1},
        {"initial_documents": {"users": 3}},
        {"database": "a.b"},
        {"transactions": -1},
    ],
)
def test_config_validation(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        MongoSimConfig(**bad)  # type: ignore[arg-type]


def test_landing_files_and_cli(tmp_path: Path) -> None:
    result = simulate_mongodb(replace(CONFIGS["oplog"], batches=1))
    paths = write_batch(result.batches[0], tmp_path / "landing", 0)
    assert {p.parent.parent.name for p in paths} == set(result.topics.values())
    lines = sum(len(p.read_text().splitlines()) for p in paths)
    assert lines == len(result.batches[0])
    out = write_mongo_expected(result, tmp_path / "expected.json")
    data = json.loads(out.read_text())
    assert data["batches"][0]["expected"] == result.expected[0]
    argv = ["--out", str(tmp_path / "cli"), "--generation", "change_streams", "--batches", "1"]
    assert main([*argv, "--expected-json", str(tmp_path / "cli.json")]) == 0
    assert (tmp_path / "cli.json").is_file()
