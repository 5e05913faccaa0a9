"""Debezium relational connector emitter: Oracle, SQL Server and Db2 flavours.

Turns logical :class:`~.source_db.Transaction` objects into the Kafka messages the
connector would publish with the JSON converter and the configured
``decimal.handling.mode`` (precise, double, string) and ``time.precision.mode`` (adaptive,
connect), Debezium 2.x naming (the record schema names use the topic name as prefix). Each
logical column gets the type its connector really uses for it (see :func:`column_encoding`).
"""

from __future__ import annotations

import binascii
import datetime as dt
import decimal
import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal

from .config import SimConfig
from .ddl import ddl_text, table_change
from .schema import (
    BOOLEAN,
    DATE,
    DECIMAL,
    INT16,
    INT32,
    INT64,
    TABLES,
    TIME,
    TIMESTAMP,
    TIMESTAMP_NS,
    TIMESTAMP_TZ,
    XML,
    ColumnSpec,
    TableSpec,
    ZonedValue,
)
from .source_db import Change, Row, SchemaChange, Transaction

VERSION = "2.3.4.Final"
ORACLE_SCN_START = 9_999_000

_EPOCH_DT = dt.datetime(1970, 1, 1)
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_dumps = _JSON.encode


@dataclass(slots=True)
class Message:
    """One Kafka record; ``key``/``value`` are the serialized JSON text (None = null);
    ``headers`` its headers, (name, value) pairs in order, as a header converter wrote them."""

    topic: str
    key: str | None
    value: str | None
    partition: int
    offset: int
    timestamp_ms: int
    headers: tuple[tuple[str, str | None], ...] = ()


class Redelivering:
    """An emitter writing partition 0 of its topic that publishes messages again at its next
    offsets (at-least-once delivery: a copy keeps its key, value and timestamp)."""

    _offset: int

    def publish_again(self, messages: list[Message]) -> list[Message]:
        out: list[Message] = []
        for m in messages:
            out.append(Message(m.topic, m.key, m.value, 0, self._offset, m.timestamp_ms))
            self._offset += 1
        return out


# ------------------------------------------------------------------ value codecs
def unscaled_to_bytes(unscaled: int) -> bytes:
    """Minimal big-endian two's-complement bytes (Java ``BigInteger.toByteArray``)."""
    length = ((unscaled if unscaled >= 0 else ~unscaled).bit_length() + 8) // 8
    return unscaled.to_bytes(length, "big", signed=True)


# Exact arithmetic for scaling (no rounding below 1000 digits).
_EXACT = decimal.Context(prec=1000, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
_b2a = binascii.b2a_base64


def decimal_unscaled(value: Decimal, scale: int) -> int:
    """The unscaled integer of ``value`` at ``scale`` (exact; raises if it would round)."""
    if not value.is_finite():
        raise TypeError(f"cannot encode non-finite decimal {value!r}")
    scaled = value.scaleb(scale, _EXACT)
    unscaled = int(scaled)
    if scaled.as_tuple().exponent < 0 and scaled != unscaled:  # type: ignore[operator]
        raise ValueError(f"{value} has more than {scale} fractional digits")
    return unscaled


def encode_decimal(value: Decimal, scale: int) -> str:
    """Kafka Connect ``Decimal`` as the JSON converter writes it: base64 text."""
    return _b2a(unscaled_to_bytes(decimal_unscaled(value, scale)), newline=False).decode("ascii")


def epoch_days(value: dt.date) -> int:
    return value.toordinal() - _EPOCH_ORDINAL


def epoch_micros(value: dt.datetime) -> int:
    d = value - _EPOCH_DT
    return (d.days * 86_400 + d.seconds) * 1_000_000 + d.microseconds


def epoch_millis(value: dt.datetime) -> int:
    return epoch_micros(value) // 1000


Encoder = Callable[[object], object]

NS_PER_MS = 1_000_000


def time_text(ns: int) -> str:
    """'HH:MM:SS.ffffff' of a time of day (what an Oracle VARCHAR2 time column holds)."""
    seconds, fraction = divmod(ns // 1000, 1_000_000)
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{fraction:06d}"


def zoned_text(value: ZonedValue) -> str:
    """io.debezium.time.ZonedTimestamp: ISO-8601 with the source's offset (``Z`` for UTC) and
    as many fractional digits as needed (none for whole seconds), like Java's
    ``DateTimeFormatter.ISO_OFFSET_DATE_TIME``."""
    seconds, nanos = divmod(value.epoch_ns + value.offset_minutes * 60 * 10**9, 10**9)
    local = _EPOCH_DT + dt.timedelta(seconds=seconds)
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    if nanos:
        text += "." + f"{nanos:09d}".rstrip("0")
    offset = value.offset_minutes
    if offset == 0:
        return text + "Z"
    sign = "+" if offset > 0 else "-"
    return f"{text}{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"


def decimal_plain(value: Decimal) -> str:
    """decimal.handling.mode=string: Java ``BigDecimal.toPlainString()``."""
    return format(value, "f")


def decimal_double(value: Decimal) -> float:
    """decimal.handling.mode=double: the nearest double."""
    return float(value)


def _time_semantic(precision: int, mode: str) -> tuple[str, str, Encoder]:
    """(type, semantic name, encoder from ns since midnight) of a TIME column."""
    if mode == "connect":
        return "int64", "org.apache.kafka.connect.data.Time", lambda v: v // NS_PER_MS  # type: ignore[operator]
    if precision <= 3:
        return "int32", "io.debezium.time.Time", lambda v: v // NS_PER_MS  # type: ignore[operator]
    if precision <= 6:
        return "int64", "io.debezium.time.MicroTime", lambda v: v // 1000  # type: ignore[operator]
    return "int64", "io.debezium.time.NanoTime", lambda v: v


def _timestamp_semantic(precision: int, mode: str) -> tuple[str, str, Encoder]:
    """(type, semantic name, encoder from ns since the epoch) of a zone-less timestamp."""
    if mode == "connect":
        return "int64", "org.apache.kafka.connect.data.Timestamp", lambda v: v // NS_PER_MS  # type: ignore[operator]
    if precision <= 3:
        return "int64", "io.debezium.time.Timestamp", lambda v: v // NS_PER_MS  # type: ignore[operator]
    if precision <= 6:
        return "int64", "io.debezium.time.MicroTimestamp", lambda v: v // 1000  # type: ignore[operator]
    return "int64", "io.debezium.time.NanoTimestamp", lambda v: v


@dataclass(frozen=True)
class ColumnEncoding:
    """How one column is written: Kafka Connect type, semantic name, parameters, encoder."""

    type: str
    name: str | None = None
    parameters: dict[str, str] | None = None
    encoder: Encoder | None = None


def column_encoding(col: ColumnSpec, config: SimConfig) -> ColumnEncoding:
    """The encoding of ``col`` by the connector ``config`` describes (flavour and modes)."""
    flavour, time_mode = config.flavour, config.time_precision_mode
    t = col.type
    if t == DECIMAL:
        scale = col.scale
        assert scale is not None
        if config.decimal_handling_mode == "double":
            return ColumnEncoding("float64", encoder=decimal_double)  # type: ignore[arg-type]
        if config.decimal_handling_mode == "string":
            return ColumnEncoding("string", encoder=decimal_plain)  # type: ignore[arg-type]
        return ColumnEncoding(
            "bytes",
            "org.apache.kafka.connect.data.Decimal",
            {"scale": str(scale), "connect.decimal.precision": str(col.precision)},
            lambda v: encode_decimal(v, scale),  # type: ignore[arg-type]
        )
    if t == DATE:
        if flavour == "oracle":  # Oracle DATE carries a time part -> a timestamp (ms)
            name = (
                "org.apache.kafka.connect.data.Timestamp"
                if time_mode == "connect"
                else "io.debezium.time.Timestamp"
            )
            return ColumnEncoding("int64", name, encoder=lambda v: epoch_days(v) * 86_400_000)  # type: ignore[arg-type]
        name = (
            "org.apache.kafka.connect.data.Date"
            if time_mode == "connect"
            else "io.debezium.time.Date"
        )
        return ColumnEncoding("int32", name, encoder=epoch_days)  # type: ignore[arg-type]
    if t == TIMESTAMP:
        if time_mode == "connect":
            return ColumnEncoding(
                "int64",
                "org.apache.kafka.connect.data.Timestamp",
                encoder=epoch_millis,  # type: ignore[arg-type]
            )
        if col.precision == 6:
            return ColumnEncoding("int64", "io.debezium.time.MicroTimestamp", encoder=epoch_micros)  # type: ignore[arg-type]
        return ColumnEncoding("int64", "io.debezium.time.Timestamp", encoder=epoch_millis)  # type: ignore[arg-type]
    if t == TIMESTAMP_NS:
        type_, name, enc = _timestamp_semantic(col.precision_for(flavour), time_mode)
        return ColumnEncoding(type_, name, encoder=enc)
    if t == TIMESTAMP_TZ:
        if flavour == "db2":  # a zone-less TIMESTAMP holding UTC
            type_, name, enc = _timestamp_semantic(col.precision_for(flavour), time_mode)
            return ColumnEncoding(type_, name, encoder=lambda v: enc(v.epoch_ns))  # type: ignore[attr-defined]
        return ColumnEncoding("string", "io.debezium.time.ZonedTimestamp", encoder=zoned_text)  # type: ignore[arg-type]
    if t == TIME:
        if flavour == "oracle":  # no TIME type: text in a VARCHAR2
            return ColumnEncoding("string", encoder=time_text)  # type: ignore[arg-type]
        type_, name, enc = _time_semantic(col.precision_for(flavour), time_mode)
        return ColumnEncoding(type_, name, encoder=enc)
    if t == XML:
        return ColumnEncoding("string", "io.debezium.data.Xml")
    if t == BOOLEAN and flavour == "oracle":  # NUMBER(1) -> int16 0/1
        return ColumnEncoding("int16", encoder=int)
    return ColumnEncoding(t)


def _column_schema(encoding: ColumnEncoding, nullable: bool, field: str) -> dict[str, object]:
    s: dict[str, object] = {"type": encoding.type, "optional": nullable}
    if encoding.name is not None:
        s["name"] = encoding.name
        s["version"] = 1
    if encoding.parameters is not None:
        s["parameters"] = dict(encoding.parameters)
    s["field"] = field
    return s


# ----------------------------------------------------------------- schema parts
def _f(type_: str, optional: bool, field: str) -> dict[str, object]:
    return {"type": type_, "optional": optional, "field": field}


def _snapshot_field(kind: str) -> dict[str, object]:
    if kind == "boolean":
        return {"type": "boolean", "optional": True, "default": False, "field": "snapshot"}
    return {
        "type": "string",
        "optional": True,
        "name": "io.debezium.data.Enum",
        "version": 1,
        "parameters": {"allowed": "true,last,false,incremental"},
        "default": "false",
        "field": "snapshot",
    }


def source_schema(flavour: str, snapshot_kind: str, with_connector: bool) -> dict[str, object]:
    """Kafka Connect schema of ``source`` for a flavour (and the snapshot field's type)."""
    fields: list[dict[str, object]] = [_f("string", False, "version")]
    if with_connector:
        fields.append(_f("string", False, "connector"))
    fields += [
        _f("string", False, "name"),
        _f("int64", False, "ts_ms"),
        _snapshot_field(snapshot_kind),
        _f("string", False, "db"),
        _f("string", True, "sequence"),
        _f("string", False, "schema"),
        _f("string", False, "table"),
    ]
    if flavour == "oracle":
        fields += [
            _f("string", True, "txId"),
            _f("string", True, "scn"),
            _f("string", True, "commit_scn"),
            _f("string", True, "lcr_position"),
            _f("string", True, "rs_id"),
            _f("int64", True, "ssn"),
            _f("int32", True, "redo_thread"),
            _f("string", True, "user_name"),
        ]
    else:
        fields += [_f("string", True, "change_lsn"), _f("string", True, "commit_lsn")]
        if flavour == "sqlserver":
            fields.append(_f("int64", True, "event_serial_no"))
    return {
        "type": "struct",
        "fields": fields,
        "optional": False,
        "name": f"io.debezium.connector.{flavour}.Source",
        "field": "source",
    }


TRANSACTION_SCHEMA: dict[str, object] = {
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


class TableCodec:
    """Per-table, per-flavour naming, row encoding and pre-serialized schemas."""

    def __init__(
        self,
        spec: TableSpec,
        config: SimConfig,
        database: str,
        schema: str,
        table_name: str | None = None,
    ):
        flavour, server = config.flavour, config.server
        upper = flavour != "sqlserver"
        self.spec = spec
        self.flavour = flavour
        name = table_name or spec.name
        self.table = name.upper() if upper else name
        self.topic = (
            f"{server}.{database}.{schema}.{self.table}"
            if flavour == "sqlserver"
            else f"{server}.{schema}.{self.table}"
        )

        def out(name: str) -> str:
            return name.upper() if upper else name

        self.encodings = {c.name: column_encoding(c, config) for c in spec.columns}
        self.columns: list[tuple[str, str, Encoder | None]] = [
            (c.name, out(c.name), self.encodings[c.name].encoder) for c in spec.columns
        ]
        self.key_columns = [c for c in self.columns if c[0] in spec.key]
        self.key_schema: dict[str, object] = {
            "type": "struct",
            "fields": [self._field_schema(n, out(n)) for n in spec.key],
            "optional": False,
            "name": f"{self.topic}.Key",
        }
        self._key_prefix = '{"schema":' + _dumps(self.key_schema) + ',"payload":'
        self._key_lnames = tuple(lname for lname, _, _ in self.key_columns)
        # Fast path for all-integer keys: a %-template equal to the JSON encoder's output.
        self._key_template: str | None = None
        if all(spec.column(n).type in (INT16, INT32, INT64) for n in spec.key):
            parts = [f"{_dumps(oname)}:%d" for _, oname, _ in self.key_columns]
            self._key_template = "{" + ",".join(parts) + "}"
        self._value_prefixes: dict[tuple[str, bool], str] = {}
        # Constant parts of the serialized ``source`` struct: head (with/without the
        # ``connector`` field) up to ``"ts_ms":`` and the middle from ``db`` to ``table``.
        self.source_head = {
            conn: _dumps(
                {"version": VERSION, "connector": flavour, "name": server}
                if conn
                else {"version": VERSION, "name": server}
            )[:-1]
            + ',"ts_ms":'
            for conn in (True, False)
        }
        db, sch, tbl = _dumps(database), _dumps(schema), _dumps(self.table)
        self.source_mid = f',"db":{db},"sequence":null,"schema":{sch},"table":{tbl},'

    def _field_schema(self, lname: str, oname: str) -> dict[str, object]:
        return _column_schema(self.encodings[lname], self.spec.column(lname).nullable, oname)

    def value_struct_schema(self, field: str) -> dict[str, object]:
        return {
            "type": "struct",
            "fields": [self._field_schema(lname, oname) for lname, oname, _ in self.columns],
            "optional": True,
            "name": f"{self.topic}.Value",
            "field": field,
        }

    def envelope_schema(self, snapshot_kind: str, with_connector: bool) -> dict[str, object]:
        return {
            "type": "struct",
            "fields": [
                self.value_struct_schema("before"),
                self.value_struct_schema("after"),
                source_schema(self.flavour, snapshot_kind, with_connector),
                _f("string", False, "op"),
                _f("int64", True, "ts_ms"),
                TRANSACTION_SCHEMA,
            ],
            "optional": False,
            "name": f"{self.topic}.Envelope",
            "version": 1,
        }

    def value_prefix(self, snapshot_kind: str, with_connector: bool) -> str:
        k = (snapshot_kind, with_connector)
        prefix = self._value_prefixes.get(k)
        if prefix is None:
            schema = self.envelope_schema(snapshot_kind, with_connector)
            prefix = '{"schema":' + _dumps(schema) + ',"payload":'
            self._value_prefixes[k] = prefix
        return prefix

    def encode_row(self, row: Row | None) -> dict[str, object] | None:
        if row is None:
            return None
        out: dict[str, object] = {}
        for lname, oname, enc in self.columns:
            v = row[lname]
            out[oname] = v if enc is None or v is None else enc(v)
        return out

    def key_payload(self, row: Row) -> dict[str, object]:
        return {oname: row[lname] for lname, oname, _ in self.key_columns}

    def key_text(self, row: Row, schemas: bool) -> str:
        if self._key_template is not None:
            payload = self._key_template % tuple([row[n] for n in self._key_lnames])
        else:
            payload = _dumps(self.key_payload(row))
        return self._key_prefix + payload + "}" if schemas else payload


# -------------------------------------------------------------------- positions
class _OracleLog:
    """SCN, txId and redo-position counters (strictly increasing in commit order)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.scn = ORACLE_SCN_START
        self.sqn = 700 + rng.randrange(200)
        self.log_seq = 0x1000 + rng.randrange(0x1000)
        self.block = rng.randrange(0x100, 0x10000)

    def snapshot_scn(self) -> int:
        self.scn += 1 + int(self.rng.random() * 50)
        return self.scn

    def begin(self) -> str:
        rng = self.rng
        self.scn += 1 + int(rng.random() * 200)
        self.sqn += 1 + int(rng.random() * 3)
        if rng.random() < 0.01:
            self.log_seq += 1
            self.block = rng.randrange(0x10, 0x1000)
        return f"{1 + int(rng.random() * 10)}.{int(rng.random() * 34)}.{self.sqn}"

    def change(self) -> tuple[int, str]:
        self.scn += 1 + int(self.rng.random() * 40)
        self.block += 1 + int(self.rng.random() * 16)
        return (
            self.scn,
            f"{self.log_seq:06x}.{self.block:08x}.{0x10 + int(self.rng.random() * 400):04x}",
        )

    def commit(self) -> int:
        self.scn += int(self.rng.random() * 10)
        return self.scn


class _LsnLog:
    """SQL Server / Db2 style LSNs ``vlf:block:slot`` (fixed-width lowercase hex)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.vlf = 0x20 + rng.randrange(0x10)
        self.block = rng.randrange(0x100, 0x2000)
        self.slot = 1

    def fmt(self) -> str:
        return f"{self.vlf:08x}:{self.block:08x}:{self.slot:04x}"

    def begin(self) -> None:
        rng = self.rng
        if rng.random() < 0.01 or self.block > 0xF000_0000:
            self.vlf += 1
            self.block = rng.randrange(0x20, 0x200)
        else:
            self.block += 8 + int(rng.random() * 2000)
        self.slot = 1 + int(rng.random() * 3)

    def change(self) -> str:
        self.slot += 1 + (self.rng.random() < 0.3)
        return self.fmt()

    def commit(self) -> str:
        self.slot += 1 + int(self.rng.random() * 2)
        return self.fmt()


# ---------------------------------------------------------------------- emitter
class DebeziumEmitter:
    """Emits the Kafka messages of one Debezium relational connector.

    Stateful across batches: log positions and per-topic offsets keep increasing.
    Deliberate real-world quirks: Oracle ``source.ts_ms`` has second resolution and
    ``source.connector`` is missing from ~30% of Oracle records; streaming
    ``source.snapshot`` is JSON ``false`` (Oracle, Db2) or ``"false"`` (SQL Server);
    SQL Server ``event_serial_no`` is a number or a digit string; snapshot records have
    ``commit_scn`` / ``change_lsn`` null and no ``transaction`` block.
    """

    ORACLE_NO_CONNECTOR_FRACTION = 0.3
    SQLSERVER_STRING_SERIAL_FRACTION = 0.3

    def __init__(self, config: SimConfig) -> None:
        self.config = config
        self.flavour = flavour = config.flavour
        self.rng = random.Random(f"debezium:{config.seed}:{flavour}")
        upper = flavour != "sqlserver"
        self.database = config.database.upper() if upper else config.database
        self.schema = config.logical_schema.upper() if upper else config.logical_schema.lower()
        self.server = config.server
        self.schemas_enable = config.schemas_enable
        self.tombstones = config.tombstones
        self.codecs: dict[str, TableCodec] = {
            name: self._codec(spec) for name, spec in TABLES.items()
        }
        self._offsets: dict[str, int] = {c.topic: 0 for c in self.codecs.values()}
        self._oracle = _OracleLog(self.rng)
        self._lsn = _LsnLog(self.rng)
        self.transaction_topic = f"{self.server}.transaction"
        self.schema_change_topic = self.server
        self.transaction_ids: dict[int, str] = {}
        """Streamed transaction seq -> transaction id, of the last ``emit`` call."""
        self._open_transaction: tuple[str, int, dict[str, int], int] | None = None
        self._read_positions: dict[int, str] = {}
        self._last_commit: int | str = 0
        self._track_reads = bool(config.incremental_snapshot_batches)

    def _codec(self, spec: TableSpec) -> TableCodec:
        physical = self.config.table_names.get(spec.name)
        return TableCodec(spec, self.config, self.database, self.schema, physical)

    def data_collection(self, table: str) -> str:
        """The transaction metadata name of a table: ``<db>.<schema>.<table>``."""
        return f"{self.database}.{self.schema}.{self.codecs[table].table}"

    def _snapshot_value(self, kind: str) -> tuple[str, str]:
        """(JSON text, schema kind) of ``source.snapshot`` for ``initial``, ``last``,
        ``streaming`` or ``incremental`` events, per ``SimConfig.snapshot_style``."""
        style = self.config.snapshot_style
        if kind == "incremental":
            return '"incremental"', "string"
        if style == "boolean":
            return ("false" if kind == "streaming" else "true"), "boolean"
        if kind == "streaming":
            if style == "string" or self.flavour == "sqlserver":
                return '"false"', "string"
            return "false", "boolean"
        return ('"last"' if kind == "last" else '"true"'), "string"

    @property
    def topics(self) -> dict[str, str]:
        """Logical table name -> topic."""
        return {name: c.topic for name, c in self.codecs.items()}

    def emit(self, transactions: Iterable[Transaction]) -> list[Message]:
        out: list[Message] = []
        self.transaction_ids = {}
        for tx in transactions:
            if tx.ddl:
                self._emit_ddl(tx, out)
            elif tx.incremental:
                self._emit_incremental(tx, out)
            elif tx.snapshot:
                self._emit_snapshot(tx, out)
            else:
                self._emit_transaction(tx, out)
        return out

    # ------------------------------------------------------------------ helpers
    # Payloads are assembled from pre-serialized constant fragments plus json-encoded
    # rows; the text is exactly what json.dumps(payload, separators=(",", ":")) gives.
    def _append(
        self, out: list[Message], topic: str, key: str | None, value: str | None, ts: int
    ) -> None:
        offset = self._offsets[topic]
        self._offsets[topic] = offset + 1
        out.append(Message(topic, key, value, 0, offset, ts))

    def _record(
        self,
        out: list[Message],
        codec: TableCodec,
        change: Change,
        source: str,
        schema_variant: tuple[str, bool],
        transaction: str,
        ts_ms: int,
    ) -> None:
        before, after, op = change.before, change.after, change.op
        b = "null" if before is None else _dumps(codec.encode_row(before))
        a = "null" if after is None else _dumps(codec.encode_row(after))
        payload = (
            f'{{"before":{b},"after":{a},"source":{source},"op":"{op}",'
            f'"ts_ms":{ts_ms},"transaction":{transaction}}}'
        )
        schemas = self.schemas_enable
        if schemas:
            value = codec.value_prefix(*schema_variant) + payload + "}"
        else:
            value = payload
        row = before if op == "d" else after
        key = None if row is None else codec.key_text(row, schemas)
        self._append(out, codec.topic, key, value, ts_ms)
        if op == "d" and self.tombstones:
            self._append(out, codec.topic, key, None, ts_ms)

    def _with_connector(self) -> bool:
        if self.flavour != "oracle":
            return True
        return not self.rng.random() < self.ORACLE_NO_CONNECTOR_FRACTION

    def _source_ts(self, ts_ms: int) -> int:
        # LogMiner reports change times with second resolution.
        return ts_ms - ts_ms % 1000 if self.flavour == "oracle" else ts_ms

    # ----------------------------------------------------------------- snapshot
    def _emit_snapshot(self, tx: Transaction, out: list[Message]) -> None:
        rng = self.rng
        flavour = self.flavour
        src_ts = self._source_ts(tx.ts_ms)
        if flavour == "oracle":
            position: dict[str, object] = {
                "txId": None,
                "scn": str(self._oracle.snapshot_scn()),
                "commit_scn": None,
                "lcr_position": None,
                "rs_id": None,
                "ssn": 0,
                "redo_thread": None,
                "user_name": None,
            }
        else:
            self._lsn.begin()
            position = {"change_lsn": None, "commit_lsn": self._lsn.commit()}
            if flavour == "sqlserver":
                position["event_serial_no"] = None
        position_text = _dumps(position)[1:]
        ts = tx.ts_ms + 50 + int(rng.random() * 500)
        last = len(tx.changes) - 1
        snap_true, snap_kind = self._snapshot_value("initial")
        snap_last, _ = self._snapshot_value("last")
        for i, change in enumerate(tx.changes):
            codec = self.codecs[change.table]
            conn = self._with_connector()
            snap = snap_last if i == last and tx.complete else snap_true
            head = codec.source_head[conn]
            source = f'{head}{src_ts},"snapshot":{snap}{codec.source_mid}{position_text}'
            ts += int(rng.random() * 3)
            self._record(out, codec, change, source, (snap_kind, conn), "null", ts)

    # ---------------------------------------------------------------- streaming
    def _positions(self, changes: list[Change]) -> tuple[str, list[str]]:
        """Transaction id and the serialized position fields of each change."""
        rng = self.rng
        flavour = self.flavour
        if flavour == "oracle":
            log = self._oracle
            tx_id = log.begin()
            scns: list[tuple[int, str]] = []
            for change in changes:
                scns.append(log.change() if not (change.same_position and scns) else scns[-1])
            head = f'"txId":{_dumps(tx_id)},"scn":"'
            self._last_commit = commit_scn = log.commit()
            tail = f'","commit_scn":"{commit_scn}","lcr_position":null,"rs_id":"'
            end = '","ssn":1,"redo_thread":1,"user_name":"SIMUSER"}'
            return tx_id, [f"{head}{scn}{tail}{rs_id}{end}" for scn, rs_id in scns]
        lsn = self._lsn
        lsn.begin()
        lsns: list[tuple[str, int]] = []
        for change in changes:
            if change.same_position and lsns:
                lsns.append((lsns[-1][0], lsns[-1][1] + 1))
            else:
                lsns.append((lsn.change(), 1))
        self._last_commit = commit_lsn = lsn.commit()
        if flavour == "sqlserver":
            text = self.SQLSERVER_STRING_SERIAL_FRACTION
            serials = [f'"{n}"' if rng.random() < text else str(n) for _, n in lsns]
            return commit_lsn, [
                f'"change_lsn":"{c}","commit_lsn":"{commit_lsn}","event_serial_no":{serial}}}'
                for (c, _), serial in zip(lsns, serials, strict=True)
            ]
        return commit_lsn, [f'"change_lsn":"{c}","commit_lsn":"{commit_lsn}"}}' for c, _ in lsns]

    def _emit_transaction(self, tx: Transaction, out: list[Message]) -> None:
        rng = self.rng
        changes = tx.changes
        tx_id, positions = self._positions(changes)
        tx_head = f'{{"id":{_dumps(tx_id)},"total_order":'
        src_ts = self._source_ts(tx.ts_ms)
        snapshot, kind = self._snapshot_value("streaming")
        ts = tx.ts_ms + 5 + int(rng.random() * 2500)
        metadata = self.config.transaction_metadata
        if metadata:
            self.transaction_ids[tx.seq] = tx_id
            self._transaction_boundary(out, "BEGIN", tx_id, ts)
        per_table: dict[str, int] = {}
        for i, change in enumerate(changes):
            codec = self.codecs[change.table]
            conn = self._with_connector()
            head = codec.source_head[conn]
            source = f'{head}{src_ts},"snapshot":{snapshot}{codec.source_mid}{positions[i]}'
            n = per_table.get(change.table, 0) + 1
            per_table[change.table] = n
            block = f'{tx_head}{i + 1},"data_collection_order":{n}}}'
            if metadata is False:
                block = "null"
            ts += int(rng.random() * 3)
            self._record(out, codec, change, source, (kind, conn), block, ts)
        if metadata:
            self._open_transaction = (tx_id, len(changes), per_table, ts)
        if self._track_reads:
            self._remember_read_position(tx.seq)

    # ------------------------------------------------------- transaction metadata
    def _transaction_boundary(self, out: list[Message], status: str, tx_id: str, ts: int) -> None:
        """BEGIN of ``tx_id``; first the END of the previous transaction, which Debezium
        can only emit once the next transaction starts."""
        if status == "BEGIN" and self._open_transaction is not None:
            prev_id, count, per_table, prev_ts = self._open_transaction
            self._open_transaction = None
            collections = [
                {"data_collection": self.data_collection(t), "event_count": n}
                for t, n in per_table.items()
            ]
            end = {
                "status": "END",
                "id": prev_id,
                "ts_ms": prev_ts,
                "event_count": count,
                "data_collections": collections,
            }
            self._control(out, self.transaction_topic, {"id": prev_id}, end, _TX_KEY, _TX_VALUE, ts)
        begin = {
            "status": "BEGIN",
            "id": tx_id,
            "ts_ms": ts,
            "event_count": None,
            "data_collections": None,
        }
        self._control(out, self.transaction_topic, {"id": tx_id}, begin, _TX_KEY, _TX_VALUE, ts)

    def _control(
        self,
        out: list[Message],
        topic: str,
        key: dict[str, object],
        payload: dict[str, object],
        key_schema: dict[str, object],
        value_schema: dict[str, object],
        ts: int,
    ) -> None:
        """A transaction-metadata or schema-change record (schema wrapper as configured)."""
        self._offsets.setdefault(topic, 0)
        if self.schemas_enable:
            key_text = _dumps({"schema": key_schema, "payload": key})
            value_text = _dumps({"schema": value_schema, "payload": payload})
        else:
            key_text, value_text = _dumps(key), _dumps(payload)
        self._append(out, topic, key_text, value_text, ts)

    # -------------------------------------------------------- incremental snapshot
    def _remember_read_position(self, seq: int) -> None:
        """The position a snapshot read made right after transaction ``seq`` carries:
        Oracle the SCN current at the read (one past the commit), the others the last
        commit LSN without a change LSN (so never equal to a change's position)."""
        if self.flavour == "oracle":
            self._oracle.scn += 1
            position: dict[str, object] = {
                "txId": None,
                "scn": str(self._oracle.scn),
                "commit_scn": None,
                "lcr_position": None,
                "rs_id": None,
                "ssn": 0,
                "redo_thread": None,
                "user_name": None,
            }
        else:
            position = {"change_lsn": None, "commit_lsn": self._last_commit}
            if self.flavour == "sqlserver":
                position["event_serial_no"] = None
        self._read_positions[seq] = _dumps(position)[1:]
        for old in [s for s in self._read_positions if s < seq - 8]:
            del self._read_positions[old]

    def _emit_incremental(self, tx: Transaction, out: list[Message]) -> None:
        """One chunk of an incremental snapshot: ``r`` events with the row as read and the
        position of the read, published when the chunk's window closed."""
        rng = self.rng
        position_text = self._read_positions[tx.seq]
        snap, kind = self._snapshot_value("incremental")
        src_ts = self._source_ts(tx.ts_ms)
        ts = tx.ts_ms + 50 + int(rng.random() * 500)
        for change in tx.changes:
            codec = self.codecs[change.table]
            conn = self._with_connector()
            head = codec.source_head[conn]
            source = f'{head}{src_ts},"snapshot":{snap}{codec.source_mid}{position_text}'
            ts += int(rng.random() * 3)
            self._record(out, codec, change, source, (kind, conn), "null", ts)

    # --------------------------------------------------------------- schema changes
    def _emit_ddl(self, tx: Transaction, out: list[Message]) -> None:
        """Apply table definition changes; publish them on the schema-change topic."""
        for ddl in tx.ddl:
            if ddl.kind != "CREATE":
                self.codecs[ddl.table] = self._codec(ddl.spec)
            if self.config.schema_change_topic:
                self._schema_change(ddl, tx, out)

    def _schema_change(self, ddl: SchemaChange, tx: Transaction, out: list[Message]) -> None:
        flavour = self.flavour
        codec = self.codecs[ddl.table]
        initial = ddl.kind == "CREATE"
        source: dict[str, object] = {
            "version": VERSION,
            "connector": flavour,
            "name": self.server,
            "ts_ms": self._source_ts(tx.ts_ms),
            "snapshot": "true" if initial else "false",
            "db": self.database,
            "sequence": None,
            "schema": self.schema,
            "table": codec.table,
        }
        if flavour == "oracle":
            log = self._oracle
            tx_id = None if initial else log.begin()
            scn = log.snapshot_scn() if initial else log.change()[0]
            source |= {
                "txId": tx_id,
                "scn": str(scn),
                "commit_scn": None if initial else str(log.commit()),
                "lcr_position": None,
                "rs_id": None,
                "ssn": 0,
                "redo_thread": None,
                "user_name": None if initial else "SIMUSER",
            }
        else:
            lsn = self._lsn
            lsn.begin()
            change_lsn = None if initial else lsn.change()
            source |= {"change_lsn": change_lsn, "commit_lsn": lsn.commit()}
            if flavour == "sqlserver":
                source["event_serial_no"] = None
        payload = {
            "source": source,
            "ts_ms": tx.ts_ms + 20,
            "databaseName": self.database,
            "schemaName": self.schema,
            "ddl": ddl_text(
                ddl.kind, ddl.spec, flavour, self.schema, codec.table, ddl.added, ddl.dropped
            ),
            "tableChanges": [
                table_change(ddl.kind, ddl.spec, flavour, self.database, self.schema, codec.table)
            ],
        }
        key_schema = {
            "type": "struct",
            "fields": [_f("string", False, "databaseName")],
            "optional": False,
            "name": f"io.debezium.connector.{flavour}.SchemaChangeKey",
        }
        value_schema = {
            "type": "struct",
            "fields": [
                source_schema(flavour, "string", True),
                _f("int64", False, "ts_ms"),
                _f("string", True, "databaseName"),
                _f("string", True, "schemaName"),
                _f("string", True, "ddl"),
                {
                    "type": "array",
                    "items": {"type": "struct", "name": "io.debezium.connector.schema.Change"},
                    "optional": False,
                    "field": "tableChanges",
                },
            ],
            "optional": False,
            "name": f"io.debezium.connector.{flavour}.SchemaChangeValue",
        }
        self._control(
            out,
            self.schema_change_topic,
            {"databaseName": self.database},
            payload,
            key_schema,
            value_schema,
            tx.ts_ms + 20,
        )


_TX_KEY: dict[str, object] = {
    "type": "struct",
    "fields": [_f("string", False, "id")],
    "optional": False,
    "name": "io.debezium.connector.common.TransactionMetadataKey",
}
_TX_VALUE: dict[str, object] = {
    "type": "struct",
    "fields": [
        _f("string", False, "status"),
        _f("string", False, "id"),
        _f("int64", True, "event_count"),
        {
            "type": "array",
            "items": {
                "type": "struct",
                "fields": [
                    _f("string", False, "data_collection"),
                    _f("int64", False, "event_count"),
                ],
                "optional": False,
            },
            "optional": True,
            "field": "data_collections",
        },
        _f("int64", False, "ts_ms"),
    ],
    "optional": False,
    "name": "io.debezium.connector.common.TransactionMetadataValue",
}
