"""Debezium MongoDB connector emitter: oplog era (1.9, ``patch``/``filter``) and change
streams (2.7, ``updateDescription``), with the JSON converter, schemas on or off.

Shapes copied from real messages (``tests/corpus``: zeromicro-cds oplog patch/filter,
paimon 2.7 change-stream events, risingwave 2.1 schema). Document texts inside the
string fields use the connector's ``{"k": v,"k2": v2}`` spacing; the envelope itself is
compact JSON like Kafka's ``JsonConverter``.
"""

from __future__ import annotations

import json
import random

from .debezium import Message
from .mongodb_config import COLLECTIONS, MongoSimConfig
from .mongodb_oracle import conveyed_mods
from .mongodb_paths import Mod, dotted, get_path, path_sort_key
from .mongodb_source import MongoOp
from .mongodb_values import Document, Value, ext_json

OPLOG_VERSION = "1.9.7.Final"
CHANGE_STREAMS_VERSION = "2.7.0.Final"
REPLICA_SET = "rs0"
OP_CODES = {"read": "r", "insert": "c", "reinsert": "c", "update": "u", "replace": "u"}
OP_CODES["delete"] = "d"
V1_WITH_VERSION_FRACTION = 0.7
"""Share of v1 oplog patches carrying ``"$v": 1`` (older servers omit it)."""
EXT_JSON_MODE_WEIGHTS = {"legacy": 0.4, "relaxed": 0.3, "canonical": 0.3}
"""Change streams: extended JSON flavour of a message's document texts."""

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


# ------------------------------------------------------------------- patch texts
def v1_patch(mods: tuple[Mod, ...], with_version: bool) -> Document:
    """``{"$v": 1, "$set": {dotted: value}, "$unset": {dotted: true}}`` (paths sorted)."""
    patch: Document = {"$v": 1} if with_version else {}
    ordered = sorted(mods, key=lambda m: path_sort_key(m.path))
    sets = {dotted(m.path): m.value for m in ordered if m.kind == "set"}
    unsets: Document = {dotted(m.path): True for m in ordered if m.kind == "unset"}
    if any(m.kind == "truncate" for m in mods):
        raise ValueError("a v1 patch has no truncation: convey it as a $set (conveyed_mods)")
    if sets:
        patch["$set"] = sets
    if unsets:
        patch["$unset"] = unsets
    return patch


def _diff_add(node: Document, before: Value, path: tuple, mod: Mod) -> None:
    head = path[0]
    if len(path) == 1:
        if isinstance(before, list):  # array node: u<i> replaces or appends element i
            node[f"u{head}"] = mod.value
            return
        assert isinstance(before, dict)
        if mod.kind == "unset":
            node.setdefault("d", {})[head] = False
        elif mod.kind == "truncate":
            sub = node.setdefault(f"s{head}", {"a": True})
            assert isinstance(sub, dict)
            sub["l"] = mod.size
        else:
            node.setdefault("u" if head in before else "i", {})[head] = mod.value
        return
    _, child = get_path(before, (head,))
    sub = node.setdefault(f"s{head}", {"a": True} if isinstance(child, list) else {})
    assert isinstance(sub, dict)
    _diff_add(sub, child, path[1:], mod)


def _diff_order(node: Document) -> Document:
    """MongoDB's field order in a diff: ``a``, ``l``, ``d``, ``u``, ``i``, then sub-diffs."""
    out: Document = {}
    for k in ("a", "l", "d", "u", "i"):
        if k in node:
            out[k] = node[k]
    for k, v in node.items():
        if k not in out:
            out[k] = _diff_order(v) if k.startswith("s") and isinstance(v, dict) else v
    return out


def v2_patch(before: Document, mods: tuple[Mod, ...]) -> Document:
    """MongoDB 5+ oplog update ``{"$v": 2, "diff": {...}}`` of ``mods`` on ``before``."""
    root: Document = {}
    for mod in sorted(mods, key=lambda m: path_sort_key(m.path)):
        _diff_add(root, before, mod.path, mod)
    return {"$v": 2, "diff": _diff_order(root)}


def update_description(mods: tuple[Mod, ...], mode: str) -> dict[str, object]:
    ordered = sorted(mods, key=lambda m: path_sort_key(m.path))
    updated: Document = {dotted(m.path): m.value for m in ordered if m.kind == "set"}
    return {
        "removedFields": [dotted(m.path) for m in ordered if m.kind == "unset"],
        "updatedFields": ext_json(updated, mode) if updated else None,
        "truncatedArrays": [
            {"field": dotted(m.path), "size": m.size} for m in ordered if m.kind == "truncate"
        ],
    }


# ----------------------------------------------------------------------- schemas
def _f(type_: str, optional: bool, name: str) -> dict[str, object]:
    return {"type": type_, "optional": optional, "field": name}


def _json(name: str) -> dict[str, object]:
    return {
        "type": "string",
        "optional": True,
        "name": "io.debezium.data.Json",
        "version": 1,
        "field": name,
    }


_SNAPSHOT_FIELD: dict[str, object] = {
    "type": "string",
    "optional": True,
    "name": "io.debezium.data.Enum",
    "version": 1,
    "parameters": {"allowed": "true,last,false,incremental"},
    "default": "false",
    "field": "snapshot",
}
_TRANSACTION: dict[str, object] = {
    "type": "struct",
    "fields": [
        _f("string", False, "id"),
        _f("int64", False, "total_order"),
        _f("int64", False, "data_collection_order"),
    ],
    "optional": True,
    "name": "event.block",
    "version": 1,
    "field": "transaction",
}
_UPDATE_DESCRIPTION: dict[str, object] = {
    "type": "struct",
    "fields": [
        {
            "type": "array",
            "items": {"type": "string", "optional": False},
            "optional": True,
            "field": "removedFields",
        },
        _json("updatedFields"),
        {
            "type": "array",
            "items": {
                "type": "struct",
                "fields": [_f("string", False, "field"), _f("int32", False, "size")],
                "optional": False,
                "name": "io.debezium.connector.mongodb.changestream.truncatedarray",
                "version": 1,
            },
            "optional": True,
            "field": "truncatedArrays",
        },
    ],
    "optional": True,
    "name": "io.debezium.connector.mongodb.changestream.updatedescription",
    "version": 1,
    "field": "updateDescription",
}


def source_schema(generation: str) -> dict[str, object]:
    head = [
        _f("string", False, "version"),
        _f("string", False, "connector"),
        _f("string", False, "name"),
        _f("int64", False, "ts_ms"),
        _SNAPSHOT_FIELD,
        _f("string", False, "db"),
    ]
    if generation == "oplog":
        tail = [
            _f("string", False, "rs"),
            _f("string", False, "collection"),
            _f("int32", False, "ord"),
            _f("int64", True, "h"),
            _f("int64", True, "tord"),
        ]
    else:
        tail = [
            _f("string", True, "sequence"),
            _f("int64", True, "ts_us"),
            _f("int64", True, "ts_ns"),
            _f("string", False, "collection"),
            _f("int32", False, "ord"),
            _f("string", True, "lsid"),
            _f("int64", True, "txnNumber"),
            _f("int64", True, "wallTime"),
        ]
    return {
        "type": "struct",
        "fields": head + tail,
        "optional": False,
        "name": "io.debezium.connector.mongo.Source",
        "field": "source",
    }


def value_schema(generation: str, topic: str) -> dict[str, object]:
    if generation == "oplog":
        data = [_json("after"), _json("patch"), _json("filter")]
    else:
        data = [_json("before"), _json("after"), _UPDATE_DESCRIPTION]
    return {
        "type": "struct",
        "fields": [
            *data,
            source_schema(generation),
            _f("string", True, "op"),
            _f("int64", True, "ts_ms"),
            _TRANSACTION,
        ],
        "optional": False,
        "name": f"{topic}.Envelope",
    }


def key_schema(topic: str) -> dict[str, object]:
    return {
        "type": "struct",
        "fields": [_f("string", False, "id")],
        "optional": False,
        "name": f"{topic}.Key",
    }


# ----------------------------------------------------------------------- emitter
class MongoEmitter:
    """Turns :class:`~.mongodb_source.MongoOp` objects into Kafka messages (one partition
    per topic; offsets keep increasing across batches)."""

    def __init__(self, config: MongoSimConfig) -> None:
        self.config = config
        self.generation = config.generation
        self.rng = random.Random(f"mongodb-emitter:{config.seed}:{config.generation}")
        self.topics = {c: f"{config.server}.{config.database}.{c}" for c in COLLECTIONS}
        self._offsets = {t: 0 for t in self.topics.values()}
        self._processed_ms = 0
        self._value_prefix = {
            t: '{"schema":' + _dumps(value_schema(self.generation, t)) + ',"payload":'
            for t in self.topics.values()
        }
        self._key_prefix = {
            t: '{"schema":' + _dumps(key_schema(t)) + ',"payload":' for t in self.topics.values()
        }

    # ----------------------------------------------------------- publication
    def _publish(self, topic: str, key: str | None, value: str | None, ts_ms: int) -> Message:
        offset = self._offsets[topic]
        self._offsets[topic] = offset + 1
        return Message(topic, key, value, 0, offset, ts_ms)

    def republish(self, message: Message) -> Message:
        """The same record published again (connector restart): new offset, same key,
        value and timestamp."""
        return self._publish(message.topic, message.key, message.value, message.timestamp_ms)

    def _wrap(self, prefixes: dict[str, str], topic: str, payload: object) -> str:
        text = _dumps(payload)
        return prefixes[topic] + text + "}" if self.config.schemas_enable else text

    def key_text(self, topic: str, doc_id: Value) -> str:
        return self._wrap(self._key_prefix, topic, {"id": ext_json(doc_id, "legacy")})

    # ----------------------------------------------------------------- events
    def _source(self, op: MongoOp) -> dict[str, object]:
        c = self.config
        ts_ms = op.ts_s * 1000
        if self.generation == "oplog":
            return {
                "version": OPLOG_VERSION,
                "connector": "mongodb",
                "name": c.server,
                "ts_ms": ts_ms,
                "snapshot": op.snapshot,
                "db": c.database,
                "rs": REPLICA_SET,
                "collection": op.collection,
                "ord": op.ord,
                "h": None,
                "tord": None,
            }
        return {
            "version": CHANGE_STREAMS_VERSION,
            "connector": "mongodb",
            "name": c.server,
            "ts_ms": ts_ms,
            "snapshot": op.snapshot,
            "db": c.database,
            "sequence": None,
            "ts_us": ts_ms * 1000,
            "ts_ns": ts_ms * 1_000_000,
            "collection": op.collection,
            "ord": op.ord,
            "lsid": None,
            "txnNumber": None,
            "wallTime": None,
        }

    def _processing_ms(self, op: MongoOp) -> int:
        """Connector processing time: after the change (lag), never going back."""
        lag = 40 + int(self.rng.random() * 900)
        step = 1 + int(self.rng.random() * 5)
        self._processed_ms = max(self._processed_ms + step, op.ts_s * 1000 + lag)
        return self._processed_ms

    def _oplog_payload(self, op: MongoOp) -> dict[str, object]:
        after = patch = filter_ = None
        if op.kind in ("read", "insert", "reinsert"):
            after = ext_json(op.after, "legacy")
        else:
            filter_ = ext_json({"_id": op.doc_id}, "legacy")
            if op.kind == "replace":
                patch = ext_json(op.after, "legacy")
            elif op.kind == "update":
                assert op.before is not None
                if op.oplog_format == "v2":
                    patch = ext_json(v2_patch(op.before, op.mods), "legacy")
                else:
                    with_v = self.rng.random() < V1_WITH_VERSION_FRACTION
                    mods = conveyed_mods(op, "oplog")
                    patch = ext_json(v1_patch(mods, with_v), "legacy")
        return {"after": after, "patch": patch, "filter": filter_}

    def _change_stream_payload(self, op: MongoOp) -> dict[str, object]:
        modes = EXT_JSON_MODE_WEIGHTS
        mode = self.rng.choices(list(modes), list(modes.values()))[0]
        after: str | None = None
        description: dict[str, object] | None = None
        if op.kind in ("read", "insert", "reinsert", "replace"):
            after = ext_json(op.after, mode)
        elif op.kind == "update":
            description = update_description(op.mods, mode)
            if self.config.full_document:
                after = ext_json(op.after, mode)
        return {"before": None, "after": after, "updateDescription": description}

    def emit(self, ops: list[MongoOp]) -> list[Message]:
        """The messages of ``ops`` in source order (a delete is followed by its tombstone
        when ``tombstones`` is on)."""
        out: list[Message] = []
        for op in ops:
            topic = self.topics[op.collection]
            if self.generation == "oplog":
                payload = self._oplog_payload(op)
            else:
                payload = self._change_stream_payload(op)
            processed = self._processing_ms(op)
            payload |= {
                "source": self._source(op),
                "op": OP_CODES[op.kind],
                "ts_ms": processed,
                "transaction": None,
            }
            key = self.key_text(topic, op.doc_id)
            out.append(
                self._publish(topic, key, self._wrap(self._value_prefix, topic, payload), processed)
            )
            if op.kind == "delete" and self.config.tombstones:
                out.append(self._publish(topic, key, None, processed))
        return out
