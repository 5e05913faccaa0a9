"""Alibaba Canal JSON (canal-kafka ``flatMessage``), one message per statement.

    {"data": [{...}, ...] | null, "database": ..., "es": <ms>, "id": <int>, "isDdl": false,
     "mysqlType": {"col": "bigint(20)", ...} | null, "old": [{changed columns}] | null,
     "pkNames": ["id"] | null, "sql": "", "sqlType": {"col": -5, ...} | null,
     "table": ..., "ts": <ms>, "type": "INSERT" | "UPDATE" | "DELETE"}

Every value is a string or null (MySQL text: ``"1"``/``"0"`` for tinyint(1),
``"2026-01-01 08:00:00"`` for datetime, ``"2026-01-01"`` for date, Java
``String.valueOf(double)`` for double, ISO-8859-1 text of the bytes for varbinary).
``data`` holds every row the statement changed (after images; before images for DELETE),
``old`` for each row only the columns that changed, with their previous value (``null``
when it was NULL). DDL (``CREATE``, ``ALTER``, ``TRUNCATE``) has ``isDdl: true``, the ``sql``
text and null data/old/mysqlType/sqlType/pkNames.

``es`` is the binlog time (whole seconds, non-decreasing); ``ts`` when Canal handled the
message (non-decreasing). Consecutive messages of one Canal fetch share ``id`` and ``ts``.
A consumer orders by (es, ts, arrival).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import random
from decimal import Decimal

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
from .debezium import Message, Redelivering

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_EPOCH = dt.datetime(1970, 1, 1)


def java_double_text(value: float) -> str:
    """``String.valueOf(double)`` (JDK 19+: shortest digits that read back the same)."""
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if 1e-3 <= abs(value) < 1e7:
        return repr(value)
    d = Decimal(repr(value))
    digits = "".join(map(str, d.as_tuple().digits)).rstrip("0") or "0"
    mantissa = digits[0] + "." + (digits[1:] or "0")
    return f"{'-' if value < 0 else ''}{mantissa}E{d.adjusted()}"


def canal_value(col: AliColumn, value: object) -> str | None:
    """A source value as Canal writes it (the raw form the oracle uses)."""
    if value is None:
        return None
    t = col.dw_type
    if t == BOOLEAN:
        return "1" if value else "0"
    if t == DOUBLE:
        assert isinstance(value, float)
        return java_double_text(value)
    if t == DATE:
        assert isinstance(value, int)
        moment = _EPOCH + dt.timedelta(milliseconds=value)
        fmt = "%Y-%m-%d" if col.mysql_type == "date" else "%Y-%m-%d %H:%M:%S"
        return moment.strftime(fmt)
    if t == BYTES:
        assert isinstance(value, bytes)
        return value.decode("latin-1")
    return str(value)


def canal_row(spec: AliTable, row: Row) -> dict[str, str | None]:
    """A row image (only the columns ``row`` has) in Canal's raw value form."""
    return {c.name: canal_value(c, row[c.name]) for c in spec.columns if c.name in row}


def canal_key_columns(spec: AliTable) -> list[str] | None:
    return list(spec.key) if spec.key is not None else None


class CanalEmitter(Redelivering):
    """Turns source transactions into Canal JSON messages on one topic (partition 0)."""

    def __init__(self, database: str, seed: int, topic: str | None = None) -> None:
        self.database = database
        self.topic = topic or f"canal_{database}"
        self.rng = random.Random(f"canal:{seed}")
        self._offset = 0
        self._id = 0
        self._ts = 0
        self._group: list[Message] = []
        self._group_keyed = True
        self.redelivery_units: list[list[Message]] = []
        """Whole Canal fetches (messages sharing id and ts) that may be redelivered; never
        one with a table without a primary key (a multiset cannot absorb a duplicate)."""

    def _close_group(self) -> None:
        if self._group and self._group_keyed:
            self.redelivery_units.append(self._group)
        self._group = []
        self._group_keyed = True

    def _publish(self, out: list[Message], body: dict[str, object], es: int, keyed: bool) -> None:
        join = self._group and es <= self._ts and self.rng.random() < 0.3
        if not join:
            self._close_group()
            self._id += 1
            self._ts = max(self._ts + 1, es + self.rng.randrange(5, 1500))
        value: dict[str, object] = {
            "data": body["data"],
            "database": self.database,
            "es": es,
            "id": self._id,
            "isDdl": body["isDdl"],
            "mysqlType": body["mysqlType"],
            "old": body["old"],
            "pkNames": body["pkNames"],
            "sql": body["sql"],
            "sqlType": body["sqlType"],
            "table": body["table"],
            "ts": self._ts,
            "type": body["type"],
        }
        m = Message(self.topic, None, _dumps(value), 0, self._offset, self._ts)
        self._offset += 1
        out.append(m)
        self._group.append(m)
        self._group_keyed = self._group_keyed and keyed

    def _statement(self, out: list[Message], st: Statement, es: int) -> None:
        spec = st.spec
        keyed = spec.key is not None
        if st.is_ddl:
            body: dict[str, object] = {
                "data": None,
                "isDdl": True,
                "mysqlType": None,
                "old": None,
                "pkNames": None,
                "sql": st.sql,
                "sqlType": None,
                "table": st.table,
                "type": st.kind,
            }
            self._publish(out, body, es, keyed)
            return
        data: list[dict[str, str | None]] = []
        old: list[dict[str, str | None]] = []
        for rc in st.rows:
            image = rc.after if rc.after is not None else rc.before
            assert image is not None
            data.append(canal_row(spec, image))
            if st.kind == "UPDATE":
                assert rc.before is not None and rc.after is not None
                before, after = canal_row(spec, rc.before), canal_row(spec, rc.after)
                old.append({c: before.get(c) for c, v in after.items() if before.get(c) != v})
        body = {
            "data": data,
            "isDdl": False,
            "mysqlType": {c.name: c.mysql_type for c in spec.columns},
            "old": old if st.kind == "UPDATE" else None,
            "pkNames": canal_key_columns(spec),
            "sql": "",
            "sqlType": {c.name: c.sql_type for c in spec.columns},
            "table": st.table,
            "type": st.kind,
        }
        self._publish(out, body, es, keyed)

    def emit(self, txs: list[SourceTx]) -> list[Message]:
        out: list[Message] = []
        for tx in txs:
            es = tx.ts_ms // 1000 * 1000
            for st in tx.statements:
                self._statement(out, st, es)
        self._close_group()
        return out
