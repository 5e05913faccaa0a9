"""The simulated MongoDB source: seeded workload, operation log and state oracle.

:class:`MongoSource` holds every collection as Python documents and executes each
operation on them directly (inserts, ``$set``/``$unset`` style updates through
:mod:`.mongodb_paths`, replacements, deletes, re-inserts of deleted ids). It never looks
at emitted messages. Each operation is recorded as a :class:`MongoOp` with its source
position (``ts_s`` whole seconds, ``ord`` within the second) and the documents before and
after, which the emitter turns into Debezium messages.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .mongodb_config import COLLECTIONS, MongoSimConfig
from .mongodb_paths import Mod, Path, apply_mods, clone, conflicts, get_path
from .mongodb_values import (
    Binary,
    Date,
    Decimal128,
    Document,
    Int64,
    ObjectId,
    Value,
    key_text,
    same_value,
)

OP_KINDS: tuple[str, ...] = ("read", "insert", "reinsert", "update", "replace", "delete")
MOD_LABELS: tuple[str, ...] = (
    "set_top",
    "set_new_field",
    "set_nested",
    "set_array_element",
    "append_array",
    "truncate_array",
    "unset",
)
START_TS_S = 1_709_251_200  # 2024-03-01T00:00:00Z

_FIRST = ("Anne", "Sally", "George", "Edward", "Zoë", "Léa", "Kenji", "Amara", "Piotr", "Ines")
_LAST = ("Kretchmar", "Thomas", "Bailey", "Walker", "Müller", "Sato", "Okafor", "Nowak")
_CITIES = ("Lisbon", "Zürich", "Osaka", "Austin", "Kraków", "Nairobi", "Oslo", "Porto")
_STREETS = ("Main St", "Rua Augusta", "Bahnhofstrasse", "Elm Rd", "Ulica Długa", "Dock Ln")
_TAGS = ("vip", "new", "churn-risk", "b2b", "newsletter", "returning", "pending")
_STATUS = ("new", "paid", "shipped", "delivered", "cancelled")
_METHODS = ("ground", "air", "pickup", "express")
_ID_TYPES = ("objectid", "int32", "int64", "string")
_ID_WEIGHTS = (0.3, 0.25, 0.2, 0.25)
_OP_WEIGHTS = {"insert": 0.15, "update": 0.5, "replace": 0.08, "delete": 0.12, "reinsert": 0.15}
_MOD_WEIGHTS = {
    "set_top": 0.25,
    "set_new_field": 0.1,
    "set_nested": 0.2,
    "set_array_element": 0.15,
    "append_array": 0.1,
    "truncate_array": 0.07,
    "unset": 0.13,
}
_CONTAINER = {"customers": "address", "orders": "shipping"}
_ARRAY = {"customers": "tags", "orders": "items"}
_OPTIONAL = {"customers": ("email", "avatar", "visits"), "orders": ("note",)}


@dataclass
class MongoOp:
    """One source operation (one oplog entry / change event)."""

    seq: int
    """Position in source order over all collections, from 0 (snapshot reads first)."""
    collection: str
    kind: str
    """One of :data:`OP_KINDS`."""
    doc_id: Value
    ts_s: int
    ord: int
    before: Document | None
    after: Document | None
    """The document after the operation (None after a delete)."""
    mods: tuple[Mod, ...] = ()
    oplog_format: str = "v1"
    """Updates: the oplog entry's form on a MongoDB of that era, ``v1``
    (``$set``/``$unset``) or ``v2`` (``{"$v": 2, "diff": ...}``)."""
    transaction: int = -1
    """Workload transaction number (-1 for snapshot reads)."""
    snapshot: str = "false"
    """``source.snapshot``: ``true``, ``last`` (final read) or ``false``."""

    @property
    def key(self) -> str:
        return key_text(self.doc_id)


@dataclass
class _Collection:
    docs: dict[str, Document] = field(default_factory=dict)
    deleted: dict[str, Value] = field(default_factory=dict)
    """Key text -> id of deleted documents not re-inserted yet."""


class MongoSource:
    """Seeded workload over ``customers`` and ``orders`` plus the true source state."""

    def __init__(self, config: MongoSimConfig) -> None:
        self.config = config
        self.rng = random.Random(f"mongodb-source:{config.seed}")
        self._format_rng = random.Random(f"mongodb-oplog-format:{config.seed}")
        self.collections = {name: _Collection() for name in COLLECTIONS}
        self.seq = 0
        self.ts_s = START_TS_S + self.rng.randrange(86_400)
        self.ord = self.rng.randrange(1, 40)
        self.transaction = 0
        self._next_number = {"customers": 1000, "orders": 50_000}
        self._sku = 100

    # ------------------------------------------------------------------ values
    def _int32(self) -> int:
        return self.rng.randint(-5, 120)

    def _double(self) -> float:
        r = self.rng.random()
        if r < 0.35:
            return float(self.rng.randint(0, 60))  # integer-valued double, e.g. 2.0
        if r < 0.8:
            return round(self.rng.uniform(0, 5000), 2)
        return round(self.rng.uniform(-10, 10), 3)

    def _decimal(self) -> Decimal128:
        r = self.rng.random()
        if r < 0.1:
            return Decimal128(f"{self.rng.randint(1, 9)}.{self.rng.randint(0, 9)}E+3")
        if r < 0.2:
            return Decimal128(str(self.rng.randint(-50, 500)))
        return Decimal128(f"{self.rng.randint(0, 999_999) / 100:.2f}")

    def _date(self) -> Date:
        ms = self.rng.randrange(1_420_070_400_000, 1_735_689_600_000)
        return Date(ms - ms % 1000 if self.rng.random() < 0.2 else ms)

    def _binary(self) -> Binary:
        if self.rng.random() < 0.2:
            return Binary(self.rng.randbytes(16), 4)
        return Binary(self.rng.randbytes(self.rng.randint(1, 12)))

    def _name(self) -> str:
        return f"{self.rng.choice(_FIRST)} {self.rng.choice(_LAST)}"

    def _email(self) -> str | None:
        if self.rng.random() < 0.1:
            return None
        return f"{self.rng.choice(_FIRST).lower()}{self.rng.randint(1, 999)}@example.com"

    def _zip(self) -> str:
        return f"{self.rng.randint(1000, 99999):05d}"

    def _tag(self) -> str:
        return self.rng.choice(_TAGS)

    def _item(self) -> Document:
        self._sku += 1 + self.rng.randrange(7)
        return {"sku": f"SKU-{self._sku}", "qty": self.rng.randint(1, 9), "price": self._double()}

    def _address(self) -> Document:
        return {
            "street": f"{self.rng.randint(1, 300)} {self.rng.choice(_STREETS)}",
            "city": self.rng.choice(_CITIES),
            "zip": self._zip(),
        }

    def _shipping(self) -> Document:
        return {
            "method": self.rng.choice(_METHODS),
            "city": self.rng.choice(_CITIES),
            "eta": self._date(),
        }

    def _new_field_value(self, name: str) -> Value:
        makers: dict[str, Callable[[], Value]] = {
            "loyalty": lambda: Int64(self.rng.randint(0, 10**12)),
            "nickname": lambda: self.rng.choice(_FIRST).lower(),
            "rating": self._double,
            "flags": lambda: [self.rng.random() < 0.5, self.rng.random() < 0.5],
            "meta": lambda: {"src": self.rng.choice(("web", "app", "pos")), "v": self._int32()},
            "last_seen": self._date,
            "blob": self._binary,
            "discount": self._decimal,
        }
        return makers[name]()

    _NEW_FIELDS: tuple[str, ...] = (
        "loyalty",
        "nickname",
        "rating",
        "flags",
        "meta",
        "last_seen",
        "blob",
        "discount",
    )

    def _scalar(self, collection: str, name: str) -> Value:
        r = self.rng
        makers: dict[str, Callable[[], Value]] = {
            "name": self._name,
            "email": self._email,
            "age": lambda: r.randint(18, 95),
            "balance": self._decimal,
            "score": self._double,
            "vip": lambda: r.random() < 0.3,
            "since": self._date,
            "visits": lambda: Int64(r.randint(0, 10**12)),
            "customer": self._name,
            "status": lambda: r.choice(_STATUS),
            "total": self._decimal,
            "placed": self._date,
            "note": lambda: None if r.random() < 0.3 else f"call {r.randint(100, 999)}",
            "weight": self._double,
            "seq": lambda: Int64(r.randint(2**31, 2**40)),
        }
        return makers[name]()

    _SCALARS = {
        "customers": ("name", "email", "age", "balance", "score", "vip", "since", "visits"),
        "orders": ("customer", "status", "total", "placed", "note", "weight", "seq"),
    }

    # --------------------------------------------------------------- documents
    def _new_id(self, collection: str) -> Value:
        kind = self.rng.choices(_ID_TYPES, _ID_WEIGHTS)[0]
        if kind == "objectid":
            stamp = self.ts_s - self.rng.randrange(10**7)
            return ObjectId(f"{stamp:08x}{self.rng.getrandbits(64):016x}")
        self._next_number[collection] += 1 + self.rng.randrange(5)
        n = self._next_number[collection]
        if kind == "int32":
            return n
        if kind == "int64":
            return Int64(n if self.rng.random() < 0.5 else 10_000_000_000 + n)
        prefix = "cust" if collection == "customers" else "ord"
        return f"{prefix}-{n:06d}"

    def _document(self, collection: str, doc_id: Value) -> Document:
        r = self.rng
        if collection == "customers":
            doc: Document = {"_id": doc_id}
            for name in self._SCALARS["customers"][:7]:
                doc[name] = self._scalar(collection, name)
            doc["address"] = self._address()
            doc["tags"] = [self._tag() for _ in range(r.randint(0, 3))]
            if r.random() < 0.5:
                doc["avatar"] = self._binary()
            if r.random() < 0.5:
                doc["visits"] = self._scalar(collection, "visits")
            return doc
        doc = {"_id": doc_id, "customer": self._name(), "status": r.choice(_STATUS)}
        doc["total"] = self._decimal()
        doc["items"] = [self._item() for _ in range(r.randint(1, 4))]
        doc["shipping"] = self._shipping()
        for name in ("placed", "note", "weight", "seq"):
            doc[name] = self._scalar(collection, name)
        return doc

    def _replacement(self, collection: str, doc_id: Value) -> Document:
        """A whole new document for the same id: fields may be missing or reordered."""
        doc = self._document(collection, doc_id)
        fields = [k for k in doc if k != "_id"]
        fields = [k for k in fields if self.rng.random() < 0.85]
        if self.rng.random() < 0.5:
            self.rng.shuffle(fields)
        out: Document = {"_id": doc_id}
        for k in fields:
            out[k] = doc[k]
        if self.rng.random() < 0.3:
            name = self.rng.choice(self._NEW_FIELDS)
            out[name] = self._new_field_value(name)
        return out

    # ------------------------------------------------------------------- mods
    def _mod(self, collection: str, doc: Document, label: str) -> Mod | None:
        r = self.rng
        container, array = _CONTAINER[collection], _ARRAY[collection]
        if label == "set_top":
            name = r.choice(self._SCALARS[collection])
            return Mod("set", (name,), self._scalar(collection, name), label=label)
        if label == "set_new_field":
            free = [n for n in self._NEW_FIELDS if n not in doc]
            if not free:
                return None
            name = r.choice(free)
            return Mod("set", (name,), self._new_field_value(name), label=label)
        if label == "set_nested":
            sub = doc.get(container)
            if not isinstance(sub, dict):
                value = self._address() if collection == "customers" else self._shipping()
                return Mod("set", (container,), value, label="set_top")
            if collection == "customers":
                name = r.choice(("street", "city", "zip", "country"))
                value: Value = {
                    "street": lambda: self._address()["street"],
                    "city": lambda: r.choice(_CITIES),
                    "zip": self._zip,
                    "country": lambda: r.choice(("PT", "CH", "JP", "US", "PL")),
                }[name]()
            else:
                name = r.choice(("method", "city", "eta"))
                value = {
                    "method": lambda: r.choice(_METHODS),
                    "city": lambda: r.choice(_CITIES),
                }.get(name, self._date)()
            return Mod("set", (container, name), value, label=label)
        items = doc.get(array)
        if label in ("set_array_element", "append_array", "truncate_array"):
            if not isinstance(items, list):
                return None
            new_elem: Callable[[], Value] = self._tag if collection == "customers" else self._item
            if label == "append_array":
                return Mod("set", (array, len(items)), new_elem(), label=label)
            if label == "truncate_array":
                if not items:
                    return None
                return Mod("truncate", (array,), size=r.randrange(len(items)), label=label)
            if not items:
                return None
            i = r.randrange(len(items))
            if collection == "orders" and isinstance(items[i], dict) and r.random() < 0.7:
                part = r.choice(("qty", "price"))
                value = r.randint(1, 20) if part == "qty" else self._double()
                return Mod("set", (array, i, part), value, label=label)
            return Mod("set", (array, i), new_elem(), label=label)
        # unset
        candidates: list[Path] = [(n,) for n in _OPTIONAL[collection] if n in doc]
        candidates += [(n,) for n in self._NEW_FIELDS if n in doc]
        sub = doc.get(container)
        if isinstance(sub, dict):
            candidates += [(container, n) for n in ("zip", "eta", "country") if n in sub]
        if not candidates:
            return None
        return Mod("unset", r.choice(candidates), label="unset")

    def _is_noop(self, doc: Document, mod: Mod) -> bool:
        found, current = get_path(doc, mod.path)
        if mod.kind == "set":
            return found and same_value(current, mod.value)
        if mod.kind == "unset":
            return not found
        return not (found and isinstance(current, list) and mod.size < len(current))

    def _update_mods(self, collection: str, doc: Document) -> tuple[Mod, ...]:
        labels, weights = list(_MOD_WEIGHTS), list(_MOD_WEIGHTS.values())
        wanted = self.rng.choice((1, 1, 2, 2, 3))
        mods: list[Mod] = []
        for _ in range(wanted * 3):
            if len(mods) == wanted:
                break
            mod = self._mod(collection, doc, self.rng.choices(labels, weights)[0])
            if mod is None or self._is_noop(doc, mod):
                continue
            if any(conflicts(mod.path, m.path) for m in mods):
                continue
            mods.append(mod)
        return tuple(mods)

    # -------------------------------------------------------------- operations
    def _position(self) -> tuple[int, int]:
        self.ord += 1
        return self.ts_s, self.ord

    def _record(self, collection: str, kind: str, doc_id: Value, **kw: object) -> MongoOp:
        ts_s, ord_ = self._position()
        op = MongoOp(
            self.seq, collection, kind, doc_id, ts_s, ord_, transaction=self.transaction, **kw
        )  # type: ignore[arg-type]
        self.seq += 1
        return op

    def snapshot(self) -> list[MongoOp]:
        """Load the initial documents; return them as snapshot reads (all at the position
        the snapshot started from, like Debezium)."""
        counts = self.config.initial_documents
        reads: list[MongoOp] = []
        for collection in COLLECTIONS:
            state = self.collections[collection]
            for _ in range(counts.get(collection, 0)):
                doc_id = self._new_id(collection)
                doc = self._document(collection, doc_id)
                state.docs[key_text(doc_id)] = doc
                op = MongoOp(
                    self.seq,
                    collection,
                    "read",
                    doc_id,
                    self.ts_s,
                    self.ord,
                    None,
                    clone(doc),
                    snapshot="true",
                )  # type: ignore[arg-type]
                self.seq += 1
                reads.append(op)
        if reads:
            reads[-1].snapshot = "last"
        return reads

    def _operation(self, collection: str) -> MongoOp | None:
        state = self.collections[collection]
        kind = self.rng.choices(list(_OP_WEIGHTS), list(_OP_WEIGHTS.values()))[0]
        if kind == "reinsert" and not state.deleted:
            kind = "insert"
        if kind in ("update", "replace", "delete") and not state.docs:
            kind = "insert"
        if kind in ("insert", "reinsert"):
            if kind == "reinsert":
                key = self.rng.choice(sorted(state.deleted))
                doc_id = state.deleted.pop(key)
            else:
                doc_id = self._new_id(collection)
                key = key_text(doc_id)
            doc = self._document(collection, doc_id)
            state.docs[key] = doc
            return self._record(collection, kind, doc_id, before=None, after=clone(doc))
        key = self.rng.choice(list(state.docs))
        doc = state.docs[key]
        doc_id = doc["_id"]
        if kind == "delete":
            del state.docs[key]
            state.deleted[key] = doc_id
            return self._record(collection, kind, doc_id, before=doc, after=None)
        if kind == "replace":
            new = self._replacement(collection, doc_id)
            state.docs[key] = new
            return self._record(collection, kind, doc_id, before=doc, after=clone(new))
        mods = self._update_mods(collection, doc)
        if not mods:
            return None  # MongoDB logs nothing for an update that changes nothing
        before = clone(doc)
        apply_mods(doc, mods)
        v2 = self._format_rng.random() < self.config.v2_patch_fraction
        return self._record(
            collection,
            "update",
            doc_id,
            before=before,
            after=clone(doc),
            mods=mods,
            oplog_format="v2" if v2 else "v1",
        )

    def generate_batch(self) -> list[MongoOp]:
        """Run ``config.transactions`` transactions of one to three operations each."""
        ops: list[MongoOp] = []
        for _ in range(self.config.transactions):
            self.transaction += 1
            advance = self.rng.choice((0, 0, 1, 1, 1, 2, 5))
            if advance:
                self.ts_s += advance
                self.ord = 0
            for _ in range(self.rng.choice((1, 1, 2, 3))):
                op = self._operation(self.rng.choice(COLLECTIONS))
                if op is not None:
                    ops.append(op)
        return ops

    # ------------------------------------------------------------------ oracle
    def documents(self, collection: str) -> dict[str, Document]:
        """Key text -> current document (live objects: do not modify)."""
        return self.collections[collection].docs
