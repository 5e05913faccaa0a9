"""Maxwell's daemon JSON on Kafka, one message per changed row (maxwells-daemon.io).

Value (``RowMap.toJSON``; options ``output_ddl`` and ``output_xoffset`` on, everything else
Maxwell's default, so no ``primary_key_columns``)::

    {"database": ..., "table": ..., "type": "insert" | "update" | "delete", "ts": <seconds>,
     "xid": <int>, "xoffset": <int> (every row of a transaction but its last),
     "commit": true (the last row of a transaction), "data": {every column},
     "old": {the changed columns' previous values} (updates)}

Values are JSON-typed as Maxwell writes them: integers (``tinyint(1)`` too: 1/0) as JSON
integers, doubles as JSON numbers in Java's ``Double.toString`` text (``1.0E7``), strings,
``datetime`` as ``"2026-01-01 08:00:00"``, ``date`` as ``"2026-01-01"``, ``varbinary``
base64-encoded, NULL as null (``data`` lists every column).

Kafka key (the default ``kafka_key_format=hash``, ``RowIdentity.toKeyJson``):
``{"database": ..., "table": ..., "pk.<column>": <value>, ...}`` with the values of
``data`` (the row after the change: an update of the key names the new row), or
``{"database", "table", "_uuid": <random uuid>}`` for a table without a primary key.

DDL (``--output_ddl``): ``table-create`` (``def``) and ``table-alter`` (``old`` and ``def``:
the table definition before and after), with ``ts`` (seconds) and ``sql``, keyed by a bare
random UUID (``DDLMap.pkToJson``). Maxwell writes nothing for ``TRUNCATE``: a workload with
truncates cannot be expressed (``truncate_probability=0``).

A consumer orders by (ts, xid, xoffset with the commit row last), then arrival.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import random
import uuid

from .alibaba_source import (
    BOOLEAN,
    BYTES,
    DATE,
    DOUBLE,
    AliColumn,
    AliTable,
    Row,
    SourceTx,
    Statement,
)
from .canal import java_double_text
from .debezium import Message, Redelivering

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_EPOCH = dt.datetime(1970, 1, 1)


def maxwell_value(col: AliColumn, value: object) -> object:
    """A source value as Maxwell writes it (the JSON value the oracle uses; doubles are
    Python floats here and Java text on the wire)."""
    if value is None:
        return None
    t = col.dw_type
    if t == BOOLEAN:
        return 1 if value else 0
    if t == DOUBLE:
        assert isinstance(value, float)
        return value
    if t == DATE:
        assert isinstance(value, int)
        moment = _EPOCH + dt.timedelta(milliseconds=value)
        return moment.strftime("%Y-%m-%d" if col.mysql_type == "date" else "%Y-%m-%d %H:%M:%S")
    if t == BYTES:
        assert isinstance(value, bytes)
        return base64.b64encode(value).decode("ascii")
    return value  # LONG int, STRING str


def maxwell_row(spec: AliTable, row: Row) -> dict[str, object]:
    """A row image (only the columns ``row`` has) in Maxwell's value form."""
    return {c.name: maxwell_value(c, row[c.name]) for c in spec.columns if c.name in row}


def maxwell_key_columns(spec: AliTable) -> list[str] | None:
    return list(spec.key) if spec.key is not None else None


def maxwell_json(value: object) -> str:
    """Compact JSON as Jackson writes it: doubles in Java's ``Double.toString`` text."""
    if isinstance(value, float):
        return java_double_text(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_dumps(k)}:{maxwell_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(maxwell_json(v) for v in value) + "]"
    return _dumps(value)


def _table_def(database: str, spec: AliTable) -> dict[str, object]:
    """The table definition of a DDL message (``def`` / ``old``)."""
    return {
        "database": database,
        "charset": "utf8mb4",
        "table": spec.name,
        "columns": [{"type": c.mysql_type.split("(")[0], "name": c.name} for c in spec.columns],
        "primary-key": list(spec.key or ()),
    }


class MaxwellEmitter(Redelivering):
    """Turns source transactions into Maxwell messages on one topic (partition 0)."""

    def __init__(self, database: str, seed: int, topic: str | None = None) -> None:
        self.database = database
        self.topic = topic or f"maxwell_{database}"
        self.rng = random.Random(f"maxwell:{seed}")
        self._offset = 0
        self._xid = 1000 + self.rng.randrange(100_000)
        self._kafka_ms = 0
        self._specs: dict[str, AliTable] = {}
        self.redelivery_units: list[list[Message]] = []
        """Whole transactions (the messages of one xid) that may be redelivered; never one
        touching a table without a primary key (a multiset cannot absorb a duplicate)."""

    def _publish(self, out: list[Message], key: str | None, value: str, ts_ms: int) -> Message:
        self._kafka_ms = max(self._kafka_ms, ts_ms + self.rng.randrange(5, 900))
        m = Message(self.topic, key, value, 0, self._offset, self._kafka_ms)
        self._offset += 1
        out.append(m)
        return m

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _row_key(self, spec: AliTable, data: dict[str, object]) -> str:
        key: dict[str, object] = {"database": self.database, "table": spec.name}
        if spec.key:
            key.update({f"pk.{c.lower()}": data.get(c) for c in spec.key})
        else:
            key["_uuid"] = self._uuid()
        return maxwell_json(key)

    def _ddl(self, out: list[Message], st: Statement, ts_ms: int) -> None:
        if st.kind == "TRUNCATE":
            raise ValueError(
                "Maxwell writes nothing for TRUNCATE: simulate it with truncate_probability=0"
            )
        value: dict[str, object] = {
            "type": "table-create" if st.kind == "CREATE" else "table-alter",
            "database": self.database,
            "table": st.table,
        }
        if st.kind == "ALTER" and st.table in self._specs:
            value["old"] = _table_def(self.database, self._specs[st.table])
        value["def"] = _table_def(self.database, st.spec)
        value["ts"] = ts_ms // 1000
        value["sql"] = st.sql
        self._specs[st.table] = st.spec
        self._publish(out, self._uuid(), maxwell_json(value), ts_ms)

    def _transaction(self, out: list[Message], tx: SourceTx) -> None:
        rows: list[tuple[AliTable, str, dict[str, object], dict[str, object] | None]] = []
        for st in tx.statements:
            if st.is_ddl:
                self._ddl(out, st, tx.ts_ms)
                continue
            spec = st.spec
            for rc in st.rows:
                image = rc.after if rc.after is not None else rc.before
                assert image is not None
                data = maxwell_row(spec, image)
                old = None
                if st.kind == "UPDATE":
                    assert rc.before is not None
                    before = maxwell_row(spec, rc.before)
                    old = {
                        c: before.get(c)
                        for c, v in data.items()
                        if maxwell_json(before.get(c)) != maxwell_json(v)
                    }
                rows.append((spec, st.kind.lower(), data, old))
        if not rows:
            return
        self._xid += self.rng.randrange(1, 40)
        unit: list[Message] = []
        for index, (spec, kind, data, old) in enumerate(rows):
            value: dict[str, object] = {
                "database": self.database,
                "table": spec.name,
                "type": kind,
                "ts": tx.ts_ms // 1000,
                "xid": self._xid,
            }
            if index < len(rows) - 1:
                value["xoffset"] = index
            else:
                value["commit"] = True
            value["data"] = data
            if old:
                value["old"] = old
            unit.append(
                self._publish(out, self._row_key(spec, data), maxwell_json(value), tx.ts_ms)
            )
        if all(spec.key is not None for spec, _, _, _ in rows):
            self.redelivery_units.append(unit)

    def emit(self, txs: list[SourceTx]) -> list[Message]:
        out: list[Message] = []
        for tx in txs:
            self._transaction(out, tx)
        return out
