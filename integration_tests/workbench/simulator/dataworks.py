"""Alibaba DataWorks real-time sync to Kafka (ENVELOPES.md section 3).

One JSON record per row change::

    {"schema": {"dataColumn": [{"name", "type"}...], "primaryKey": [...] | null,
                "source": {"dbType", ["dbVersion",] "dbName", ["schemaName",] "tableName"}},
     "payload": {"before": {"dataColumn": {...}} | null, "after": ... | null,
                 "sequenceId": "<digits>", ["scn": "<digits>",] "op": ...,
                 "timestamp": {"eventTime", "systemTime", "checkpointTime"},
                 "ddl": {"text", "ddlMeta": null} | null},
     "version": "0.0.1"}

(payload key order as in DataWorks' own examples: before, after, sequenceId, timestamp,
op, ddl). Updates are ``UPDATE_BEFOR`` (before only) + ``UPDATE_AFTER`` (after only) with
one sequenceId, or one ``UPDATE_AFTER`` carrying both (``update_mode="single"``). Heartbeats
(``MHEARTBEAT``) have null schema fields, null before/after/sequenceId and
``timestamp: {eventTime, checkpointTime}``. Rows of the initial full load carry
``sequenceId "-1"`` and eventTime/checkpointTime ``-1`` (as in Paimon's fixture).
"""

from __future__ import annotations

import base64
import json
import random
import zlib
from dataclasses import dataclass

from .alibaba_source import (
    BOOLEAN,
    BYTES,
    DOUBLE,
    ROW_ID,
    AliColumn,
    AliTable,
    Row,
    SourceTx,
    Statement,
)
from .debezium import Message

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

UPDATE_MODES = ("split", "single")
BEFORE_OPS = ("UPDATE_BEFOR", "UPDATE_BEFORE")
SEQUENCE_START = 10**18 - 60
"""Default first sequenceId: 18 digits, reaching 19 after ~30 records, so text order and
numeric order of sequenceIds differ."""


@dataclass(frozen=True)
class DataWorksOptions:
    """How the sync task is configured (and which format variants it writes)."""

    update_mode: str = "split"
    """``split``: UPDATE_BEFOR + UPDATE_AFTER; ``single``: one UPDATE_AFTER with both."""
    before_op: str = "UPDATE_BEFOR"
    """The op of the before half (DataWorks spells it ``UPDATE_BEFOR``)."""
    db_type: str = "MySQL"
    db_version: str | None = "8.0.28"
    """``source.dbVersion``; None leaves the field out (as DataWorks' MySQL examples do)."""
    schema_name: str | None = None
    """``source.schemaName``; None leaves the field out."""
    version: str = "0.0.1"
    transaction_markers: bool = True
    """TRANSACTION_BEGIN/TRANSACTION_END around transactions of more than one row change."""
    heartbeat_every: tuple[int, int] = (3, 8)
    """A heartbeat after every n-th transaction, n drawn from this range (and one at the
    end of every batch, after its last change)."""
    heartbeat_system_time: bool = False
    """Heartbeats carry ``systemTime`` too (the documented heartbeat has none)."""
    double_as_string: bool = False
    """DOUBLE values as ``"%.6f"`` text (Paimon's fixture: ``"val": "1.100000"``)."""
    full_load_minus_one: bool = True
    """Initial-load rows carry sequenceId "-1" and eventTime/checkpointTime -1."""
    include_scn: bool = False
    """``payload.scn`` (Oracle sources carry it; MySQL records do not)."""
    sequence_start: int = SEQUENCE_START
    topic: str | None = None
    """Kafka topic; None: ``dataworks_<database>``."""
    partitions: int = 1

    def __post_init__(self) -> None:
        if self.update_mode not in UPDATE_MODES:
            raise ValueError(f"update_mode must be one of {UPDATE_MODES}")
        if self.before_op not in BEFORE_OPS:
            raise ValueError(f"before_op must be one of {BEFORE_OPS}")
        if self.partitions < 1 or not 1 <= self.heartbeat_every[0] <= self.heartbeat_every[1]:
            raise ValueError("partitions must be >= 1 and heartbeat_every a range of n >= 1")


@dataclass(frozen=True)
class Heartbeat:
    """The latest ``MHEARTBEAT`` of a topic (``system_time`` None when not sent)."""

    event_time: int
    checkpoint_time: int
    system_time: int | None


def dw_value(col: AliColumn, value: object, options: DataWorksOptions) -> object:
    """A source value as DataWorks writes it (the raw form the oracle uses)."""
    if value is None:
        return None
    if col.dw_type == BYTES:
        assert isinstance(value, bytes)
        return base64.b64encode(value).decode("ascii")
    if col.dw_type == DOUBLE:
        assert isinstance(value, float)
        return f"{value:.6f}" if options.double_as_string else value
    if col.dw_type == BOOLEAN:
        return bool(value)
    return value  # LONG int, STRING str, DATE epoch-ms int


def dw_columns(spec: AliTable) -> list[tuple[str, str]]:
    """(name, type) of every column DataWorks lists (plus the RDS row id without a key)."""
    cols = [(c.name, c.dw_type) for c in spec.columns]
    if spec.key is None:
        cols.append((ROW_ID, "LONG"))
    return cols


def dw_key_columns(spec: AliTable) -> list[str]:
    return list(spec.key) if spec.key is not None else [ROW_ID]


def dw_row(spec: AliTable, row: Row, row_id: int, options: DataWorksOptions) -> Row:
    """A row image (only the columns ``row`` has) in DataWorks' raw value form."""
    out: Row = {c.name: dw_value(c, row[c.name], options) for c in spec.columns if c.name in row}
    if spec.key is None:
        out[ROW_ID] = row_id
    return out


class DataWorksEmitter:
    """Turns source transactions into DataWorks records on one topic."""

    def __init__(self, database: str, options: DataWorksOptions, seed: int) -> None:
        self.database = database
        self.options = options
        self.topic = options.topic or f"dataworks_{database}"
        self.rng = random.Random(f"dataworks:{seed}")
        self._seq = options.sequence_start
        self._offsets = [0] * options.partitions
        self._system_ms = 0
        self._until_heartbeat = self._heartbeat_gap()
        self._last_event = -1
        self.heartbeat: Heartbeat | None = None
        self.redelivery_units: list[list[Message]] = []
        """Groups of data messages that may be redelivered together (a split update's two
        halves form one unit); heartbeats and transaction markers are never redelivered."""

    def _heartbeat_gap(self) -> int:
        lo, hi = self.options.heartbeat_every
        return self.rng.randint(lo, hi)

    def _next_seq(self) -> str:
        self._seq += self.rng.choice((1, 1, 1, 2, 3))
        return str(self._seq)

    def _source(self, table: str | None) -> dict[str, object]:
        o = self.options
        src: dict[str, object] = {"dbType": o.db_type}
        if o.db_version is not None:
            src["dbVersion"] = o.db_version
        src["dbName"] = self.database
        if o.schema_name is not None:
            src["schemaName"] = o.schema_name
        src["tableName"] = table
        return src

    def _schema(self, spec: AliTable) -> dict[str, object]:
        return {
            "dataColumn": [{"name": n, "type": t} for n, t in dw_columns(spec)],
            "primaryKey": list(spec.key) if spec.key is not None else None,
            "source": self._source(spec.name),
        }

    def _publish(self, out: list[Message], value: dict[str, object], partition: int) -> Message:
        offset = self._offsets[partition]
        self._offsets[partition] += 1
        ts = value["payload"]["timestamp"].get("systemTime") or self._system_ms  # type: ignore[index,union-attr]
        m = Message(self.topic, None, _dumps(value), partition, offset, int(ts))
        out.append(m)
        return m

    def _partition(self, table: str, key: tuple[object, ...]) -> int:
        if self.options.partitions == 1:
            return 0
        return zlib.crc32(_dumps([table, *key]).encode()) % self.options.partitions

    def _timestamp(self, event_ms: int, initial: bool) -> dict[str, int]:
        self._system_ms = max(self._system_ms + 1, event_ms + self.rng.randrange(50, 900))
        if initial and self.options.full_load_minus_one:
            return {"eventTime": -1, "systemTime": self._system_ms, "checkpointTime": -1}
        return {"eventTime": event_ms, "systemTime": self._system_ms, "checkpointTime": event_ms}

    def _payload(
        self,
        before: Row | None,
        after: Row | None,
        seq: str,
        op: str,
        timestamp: dict[str, int],
        ddl: str | None = None,
    ) -> dict[str, object]:
        p: dict[str, object] = {
            "before": None if before is None else {"dataColumn": before},
            "after": None if after is None else {"dataColumn": after},
            "sequenceId": seq,
        }
        if self.options.include_scn:
            p["scn"] = seq
        p["timestamp"] = timestamp
        p["op"] = op
        p["ddl"] = None if ddl is None else {"text": ddl, "ddlMeta": None}
        return p

    def _record(self, schema: object, payload: dict[str, object]) -> dict[str, object]:
        return {"schema": schema, "payload": payload, "version": self.options.version}

    def _marker(self, out: list[Message], op: str, event_ms: int) -> None:
        schema = {"dataColumn": None, "primaryKey": None, "source": self._source(None)}
        payload = self._payload(None, None, self._next_seq(), op, self._timestamp(event_ms, False))
        for partition in range(self.options.partitions):
            self._publish(out, self._record(schema, payload), partition)

    def emit_heartbeat(self, out: list[Message], source_clock_ms: int) -> None:
        """A heartbeat on every partition: all source changes up to eventTime are read."""
        event = max(self._last_event, source_clock_ms // 1000 * 1000)
        self._system_ms = max(self._system_ms + 1, event + self.rng.randrange(50, 900))
        ts: dict[str, int] = {"eventTime": event, "checkpointTime": event}
        if self.options.heartbeat_system_time:
            ts = {"eventTime": event, "systemTime": self._system_ms, "checkpointTime": event}
        schema = {"dataColumn": None, "primaryKey": None, "source": None}
        payload = {
            "before": None,
            "after": None,
            "sequenceId": None,
            "timestamp": ts,
            "op": "MHEARTBEAT",
            "ddl": None,
        }
        for partition in range(self.options.partitions):
            self._publish(out, self._record(schema, payload), partition)
        system = self._system_ms if self.options.heartbeat_system_time else None
        self.heartbeat = Heartbeat(event, event, system)
        self._last_event = event

    def _statement(self, out: list[Message], st: Statement, event_ms: int, initial: bool) -> None:
        spec, o = st.spec, self.options
        if st.kind == "CREATE":  # tables that exist when the sync starts: no record
            return
        schema = self._schema(spec)
        if st.kind in ("ALTER", "TRUNCATE"):
            ts = self._timestamp(event_ms, False)
            payload = self._payload(None, None, self._next_seq(), st.kind, ts, st.sql)
            m = self._publish(out, self._record(schema, payload), 0)
            if st.kind == "TRUNCATE":
                self.redelivery_units.append([m])
            return
        for rc in st.rows:
            before = None if rc.before is None else dw_row(spec, rc.before, rc.row_id, o)
            after = None if rc.after is None else dw_row(spec, rc.after, rc.row_id, o)
            image = after if after is not None else before
            assert image is not None
            key = tuple(image[k] for k in dw_key_columns(spec))
            partition = self._partition(spec.name, key)
            seq = "-1" if initial and o.full_load_minus_one else self._next_seq()
            ts = self._timestamp(event_ms, initial)
            if st.kind == "UPDATE" and o.update_mode == "split":
                first = self._payload(before, None, seq, o.before_op, ts)
                second = self._payload(None, after, seq, "UPDATE_AFTER", ts)
                unit = [
                    self._publish(out, self._record(schema, first), partition),
                    self._publish(out, self._record(schema, second), partition),
                ]
            else:
                op = "UPDATE_AFTER" if st.kind == "UPDATE" else st.kind
                payload = self._payload(before, after, seq, op, ts)
                unit = [self._publish(out, self._record(schema, payload), partition)]
            self.redelivery_units.append(unit)

    def emit(self, txs: list[SourceTx]) -> list[Message]:
        """The records of one batch, ending with a heartbeat after its last change."""
        out: list[Message] = []
        for tx in txs:
            event_ms = tx.ts_ms // 1000 * 1000  # binlog time: whole seconds
            if not tx.initial:
                self._last_event = max(self._last_event, event_ms)
            markers = self.options.transaction_markers and tx.row_changes > 1 and not tx.initial
            if markers:
                self._marker(out, "TRANSACTION_BEGIN", event_ms)
            for st in tx.statements:
                self._statement(out, st, event_ms, tx.initial)
            if markers:
                self._marker(out, "TRANSACTION_END", event_ms)
            self._until_heartbeat -= 1
            if self._until_heartbeat <= 0:
                self.emit_heartbeat(out, tx.ts_ms)
                self._until_heartbeat = self._heartbeat_gap()
        if txs:
            self.emit_heartbeat(out, txs[-1].ts_ms + 1000)
        return out

    def publish_again(self, messages: list[Message]) -> list[Message]:
        """Copies of ``messages`` published again (new offsets, same values)."""
        out: list[Message] = []
        for m in messages:
            offset = self._offsets[m.partition]
            self._offsets[m.partition] += 1
            out.append(Message(m.topic, m.key, m.value, m.partition, offset, self._system_ms))
        return out
