"""Oracle GoldenGate for Big Data JSON formatter messages, one message per row change.

    {"table": "<SCHEMA>.<TABLE>", "op_type": "I" | "U" | "D" | "T",
     "op_ts": "2026-01-01 08:00:00.000000", "current_ts": "2026-01-01T08:00:01.000000",
     "pos": "<20 digits>", "primary_keys": ["id"], "before": {...}, "after": {...}}

Extract's defaults are kept: **compressed updates** (the before and after images of an
update carry the key columns and the changed columns only; a primary-key update's before
image names the old key, its after image the new one) and **compressed deletes** (the
before image carries the key columns only). An insert carries its whole row. A table
without a primary key is logged with every column as its key: whole images, no
`primary_keys`. With ``missing_flags`` the formatter writes every column of every image,
a column the image does not carry as ``null`` with ``"<COL>_isMissing": true`` and every
other with ``"<COL>_isMissing": false``. DDL is not written to the data topic; TRUNCATE is
a ``T`` record of the table. ``pos`` is the trail position (sequence number and RBA),
increasing; ``op_ts`` the commit time, shared by a transaction's records.

Values (:func:`ogg_value`): integers and doubles as JSON numbers, booleans as ``1``/``0``
(Oracle ``NUMBER(1)``), text as strings, dates as ``YYYY-MM-DD HH:MM:SS`` text, bytes as
base64 text.
"""

from __future__ import annotations

import base64
import datetime as dt
import json

from .alibaba_source import BOOLEAN, BYTES, DATE, AliTable, Row, SourceTx, Statement
from .debezium import Message, Redelivering

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_EPOCH = dt.datetime(1970, 1, 1)


def ogg_value(dw_type: str, mysql_type: str, value: object) -> object:
    """A source value as the JSON formatter writes it (the raw form the oracle uses)."""
    if value is None:
        return None
    if dw_type == BOOLEAN:
        return 1 if value else 0
    if dw_type == DATE:
        assert isinstance(value, int)
        moment = _EPOCH + dt.timedelta(milliseconds=value)
        return moment.strftime("%Y-%m-%d" if mysql_type == "date" else "%Y-%m-%d %H:%M:%S")
    if dw_type == BYTES:
        assert isinstance(value, bytes)
        return base64.b64encode(value).decode("ascii")
    return value


def ogg_row(spec: AliTable, row: Row) -> Row:
    """A row image (only the columns ``row`` has) in the formatter's value form."""
    return {
        c.name: ogg_value(c.dw_type, c.mysql_type, row[c.name])
        for c in spec.columns
        if c.name in row
    }


def ogg_key_columns(spec: AliTable) -> list[str] | None:
    return list(spec.key) if spec.key is not None else None


class OggEmitter(Redelivering):
    """Turns source transactions into OGG JSON records on one topic (partition 0)."""

    def __init__(
        self, database: str, topic: str | None = None, missing_flags: bool = False
    ) -> None:
        self.schema = database.upper()
        self.topic = topic or f"ogg_{database}"
        self.missing_flags = missing_flags
        self._offset = 0
        self._rba = 0
        self.redelivery_units: list[list[Message]] = []
        """Whole transactions that may be redelivered; never one that changes a table
        without a primary key (its rows are a multiset, as for Canal)."""

    def _image(self, spec: AliTable, image: Row, columns: list[str]) -> dict[str, object]:
        """``image`` limited to ``columns`` (compressed), with the missing-column flags."""
        carried = {c: image[c] for c in columns if c in image}
        if not self.missing_flags:
            return carried
        flagged: dict[str, object] = {}
        for column in spec.column_names:
            flagged[column] = carried.get(column)
            flagged[f"{column}_isMissing"] = column not in carried
        return flagged

    def _record(self, st: Statement, op_ts: str, body: dict[str, object]) -> Message:
        self._rba += 1 + len(body)
        ts_ms = int((dt.datetime.fromisoformat(op_ts) - _EPOCH).total_seconds() * 1000)
        current = (_EPOCH + dt.timedelta(milliseconds=ts_ms + 1500)).isoformat(
            timespec="microseconds"
        )
        value: dict[str, object] = {
            "table": f"{self.schema}.{st.table.upper()}",
            "op_type": body.pop("op_type"),
            "op_ts": op_ts,
            "current_ts": current,
            "pos": f"{1:010d}{self._rba:010d}",
            **body,
        }
        m = Message(self.topic, None, _dumps(value), 0, self._offset, ts_ms + 1500)
        self._offset += 1
        return m

    def _statement(self, st: Statement, op_ts: str) -> list[Message]:
        spec = st.spec
        if st.kind == "TRUNCATE":
            return [self._record(st, op_ts, {"op_type": "T"})]
        if st.is_ddl:  # CREATE / ALTER: not written to the data topic
            return []
        keys = list(spec.key or spec.column_names)
        pk: dict[str, object] = {"primary_keys": list(spec.key or ())}
        out = []
        for rc in st.rows:
            before = ogg_row(spec, rc.before) if rc.before is not None else None
            after = ogg_row(spec, rc.after) if rc.after is not None else None
            if st.kind == "INSERT":
                assert after is not None
                body = {"op_type": "I", **pk, "after": self._image(spec, after, list(after))}
            elif st.kind == "UPDATE":
                assert before is not None and after is not None
                changed = [c for c in after if before.get(c, None) != after[c] or c not in before]
                columns = [c for c in spec.column_names if c in keys or c in changed]
                body = {
                    "op_type": "U",
                    **pk,
                    "before": self._image(spec, before, columns),
                    "after": self._image(spec, after, columns),
                }
            else:
                assert before is not None
                body = {"op_type": "D", **pk, "before": self._image(spec, before, keys)}
            out.append(self._record(st, op_ts, body))
        return out

    def emit(self, txs: list[SourceTx]) -> list[Message]:
        out: list[Message] = []
        for tx in txs:
            op_ts = (_EPOCH + dt.timedelta(milliseconds=tx.ts_ms)).isoformat(
                sep=" ", timespec="microseconds"
            )
            unit: list[Message] = []
            keyed = True
            for st in tx.statements:
                unit += self._statement(st, op_ts)
                keyed = keyed and (st.spec.key is not None or not st.rows)
            out += unit
            if unit and keyed:
                self.redelivery_units.append(unit)
        return out
