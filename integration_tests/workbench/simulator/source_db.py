"""In-memory source database, random workload and the expected-state oracle.

The database produces *logical* change events (:class:`Transaction` / :class:`Change`),
independent of any connector. Emitters (e.g. :mod:`.debezium`) turn them into the
messages a given connector would publish. Because every change is applied to the
in-memory tables as it is generated, :meth:`SourceDatabase.expected_state` after a batch
is the state a correct CDC consumer must reproduce.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TypeVar

from .config import SimConfig
from .schema import INT32, TABLES, ColumnSpec, TableSpec, ZonedValue

Row = dict[str, object]
Key = tuple[object, ...]
State = dict[str, dict[Key, Row]]
T = TypeVar("T")

EPOCH_DT = dt.datetime(1970, 1, 1)
EPOCH_DATE = dt.date(1970, 1, 1)
# Source clock starts here (plus a seed-dependent offset).
CLOCK_START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z

_DATE_MIN = dt.date(1940, 1, 1).toordinal()
_DATE_MAX = dt.date(2010, 12, 31).toordinal()
_TS_MIN_US = (dt.datetime(2015, 1, 1) - EPOCH_DT) // dt.timedelta(microseconds=1)
_TS_MAX_US = (dt.datetime(2030, 12, 31, 23, 59, 59, 999999) - EPOCH_DT) // dt.timedelta(
    microseconds=1
)

_FIRST_NAMES = (
    "Anne", "John", "Sally", "Edward", "José", "Zoë", "Łukasz", "Ǻsa", "Müller", "Søren",
    "O'Brien", "Jean-Luc", "李", "さくら", "Mary Ann", "Ω",
)  # fmt: skip
_LAST_NAMES = (
    "Kretchmar", "Doe", "Thomas", "Walker", "García", "Dvořák", "Nguyễn", "O'Connor",
    "Smith-Jones", "van der Berg", "王", "山田", "Öztürk", "D\"Quote",
)  # fmt: skip
_NOTES = (
    "café ✓",
    'He said "hi"',
    "back\\slash and \\n literal",
    "line1\nline2",
    "tab\there",
    "emoji 🚀 ok",
    "",
    "日本語のメモ",
    "  leading and trailing spaces  ",
    '{"json": [1, 2]}',
    "semi;colon,comma|pipe",
    "carriage\r\nreturn",
    "null",
)
_STATUSES = ("NEW", "PAID", "SHIPPED", "CANCELLED")
_NS_PER_DAY = 86_400 * 10**9
_TS_MIN_NS = _TS_MIN_US * 1000
_TS_MAX_NS = _TS_MAX_US * 1000 + 999
# UTC offsets (minutes) seen on zoned timestamps, including the extremes and odd ones.
_OFFSETS = (0, 0, 60, 120, -300, -480, 330, 345, 540, 840, -720, -570)
_XML_ITEMS = ("Tisch & Stuhl", "café ✓", 'he said "hi"', "日本語", "a<b>c", "emoji 🚀", "")
_TLDS = ("com", "org", "net", "io", "de", "co.jp")


@dataclass(slots=True)
class Change:
    """One logical row change.

    ``op``: ``r`` snapshot read, ``c`` insert, ``u`` update, ``d`` delete, ``t`` truncate.
    ``same_position`` marks a change that shares the log position of the previous change
    (the insert half of a primary-key change).
    """

    op: str
    table: str
    before: Row | None
    after: Row | None
    same_position: bool = False


@dataclass(frozen=True, slots=True)
class SchemaChange:
    """A table definition change: ``CREATE`` (capture starts) or ``ALTER`` (columns
    ``added`` / ``dropped``); ``spec`` is the table after the change."""

    table: str
    kind: str
    spec: TableSpec
    added: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()


@dataclass(slots=True)
class Transaction:
    """Changes committed together; ``seq`` increases in commit order (0 = snapshot).

    ``incremental``: the surviving reads of one incremental-snapshot chunk, read right
    after transaction ``seq`` committed and published when the chunk's window closed.
    ``ddl``: table definition changes (no row changes).
    ``complete``: a snapshot that ends with its ``last`` read (False: it stopped before).
    ``uncaptured``: changes the source made while capture was down (never emitted).
    """

    seq: int
    ts_ms: int
    changes: list[Change]
    snapshot: bool = False
    incremental: bool = False
    ddl: list[SchemaChange] = field(default_factory=list)
    complete: bool = True
    uncaptured: list[Change] = field(default_factory=list)


# Schema evolution (SimConfig.evolve_batch): a column added to one table, one dropped
# from another.
ADDED_COLUMN = ("customers", ColumnSpec("loyalty_points", INT32, True))
DROPPED_COLUMN = ("orders", "note")


@dataclass(slots=True)
class _IncrementalSnapshot:
    """A running incremental snapshot: tables still to read, by primary-key chunks."""

    tables: list[str]
    last_key: Key | None = None
    max_key: Key | None = None
    window: dict[tuple[str, Key], Change] = field(default_factory=dict)
    window_left: int = -1
    read_seq: int = 0
    read_ts: int = 0


class _KeyedRows:
    """Rows by key plus an index list for O(1) uniform random choice and removal."""

    __slots__ = ("keys", "pos", "rows")

    def __init__(self) -> None:
        self.rows: dict[Key, Row] = {}
        self.keys: list[Key] = []
        self.pos: dict[Key, int] = {}

    def __len__(self) -> int:
        return len(self.keys)

    def put(self, key: Key, row: Row) -> None:
        if key not in self.rows:
            self.pos[key] = len(self.keys)
            self.keys.append(key)
        self.rows[key] = row

    def remove(self, key: Key) -> Row:
        row = self.rows.pop(key)
        i = self.pos.pop(key)
        last = self.keys.pop()
        if i < len(self.keys):
            self.keys[i] = last
            self.pos[last] = i
        return row

    def random_key(self, rng: random.Random) -> Key:
        return self.keys[int(rng.random() * len(self.keys))]

    def clear(self) -> None:
        self.rows.clear()
        self.keys.clear()
        self.pos.clear()


def _escape_xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")


def decimal_from_unscaled(unscaled: int, scale: int) -> Decimal:
    """Exact Decimal ``unscaled * 10**-scale`` (no context rounding)."""
    return Decimal(f"{unscaled}E-{scale}") if scale else Decimal(unscaled)


def _pick(rng: random.Random, seq: Sequence[T]) -> T:
    """``rng.choice`` without its overhead."""
    return seq[int(rng.random() * len(seq))]


def _random_unscaled(rng: random.Random, precision: int) -> int:
    """Signed unscaled integer with a random number of digits (<= precision)."""
    r = rng.random()
    if r < 0.05:
        return 0
    if r < 0.15:  # as many digits as the column allows
        digits = precision
    else:
        digits = 1 + int(rng.random() * precision)
    value = rng.randrange(10 ** (digits - 1), 10**digits)
    return -value if rng.random() < 0.3 else value


class SourceDatabase:
    """The simulated relational source DB and its random workload generator."""

    def __init__(self, config: SimConfig) -> None:
        self.config = config
        self.rng = random.Random(config.seed)
        self.tables: dict[str, _KeyedRows] = {name: _KeyedRows() for name in TABLES}
        self.specs: dict[str, TableSpec] = dict(TABLES)
        self._incremental: _IncrementalSnapshot | None = None
        self.incremental_reads_discarded = 0
        """Reads dropped because a streamed change hit their key inside the window."""
        # Oracle stores '' as NULL; the same draws are made for every flavour.
        self._empty_string_is_null = config.flavour == "oracle"
        self.clock_ms = CLOCK_START_MS + self.rng.randrange(0, 30 * 86_400) * 1000
        self._tx_seq = 0
        self._next_customer_id = 1001
        self._next_order_id = 9_000_000_000 + self.rng.randrange(1_000_000)
        self._next_line_no: dict[object, int] = {}
        self._batches_done = 0
        self._generators: dict[str, dict[str, Callable[[], object]]] = {
            "customers": {
                "first_name": lambda: _pick(self.rng, _FIRST_NAMES),
                "last_name": lambda: _pick(self.rng, _LAST_NAMES),
                "email": self._email,
                "balance": lambda: self._decimal(TABLES["customers"].column("balance")),
                "birth_date": self._date,
                "created_at": self._timestamp_us,
                "is_active": lambda: self.rng.random() < 0.7,
                ADDED_COLUMN[1].name: lambda: int(self.rng.random() * 10_000),
                "contact_time": lambda: self._time_of_day(
                    TABLES["customers"].column("contact_time")
                ),
                "last_seen_at": lambda: self._zoned(TABLES["customers"].column("last_seen_at")),
            },
            "orders": {
                "customer_id": self._customer_ref,
                "amount": lambda: self._decimal(TABLES["orders"].column("amount")),
                "status": lambda: _pick(self.rng, _STATUSES),
                "ordered_at": self._timestamp_ms,
                "note": self._note,
                "quantity": self._int16,
                "shipped_at": lambda: self._timestamp_ns(TABLES["orders"].column("shipped_at")),
                "promised_time": lambda: self._time_of_day(
                    TABLES["orders"].column("promised_time")
                ),
                "ledger_amount": lambda: self._decimal(TABLES["orders"].column("ledger_amount")),
                "packing_slip": self._xml,
            },
            "order_lines": {
                "sku": lambda: f"SKU-{int(self.rng.random() * 100_000):05d}",
                "qty": self._int32,
                "unit_price": lambda: self._decimal(TABLES["order_lines"].column("unit_price")),
            },
        }
        self._non_key = {name: spec.non_key_columns for name, spec in TABLES.items()}
        self._names = {name: spec.column_names for name, spec in TABLES.items()}
        self._check_generators()

    # ------------------------------------------------------------------ values
    def _check_generators(self) -> None:
        for name, spec in TABLES.items():
            missing = {c.name for c in spec.non_key_columns} - set(self._generators[name])
            if missing:
                raise AssertionError(f"no generator for {name}.{sorted(missing)}")

    def _email(self) -> str:
        rng = self.rng
        return f"user{int(rng.random() * 1_000_000)}@example.{_pick(rng, _TLDS)}"

    def _decimal(self, col: ColumnSpec) -> Decimal:
        assert col.precision is not None and col.scale is not None
        return decimal_from_unscaled(_random_unscaled(self.rng, col.precision), col.scale)

    def _date(self) -> dt.date:
        return dt.date.fromordinal(_DATE_MIN + int(self.rng.random() * (_DATE_MAX - _DATE_MIN + 1)))

    def _timestamp_us(self) -> dt.datetime:
        us = _TS_MIN_US + int(self.rng.random() * (_TS_MAX_US - _TS_MIN_US))
        return EPOCH_DT + dt.timedelta(microseconds=us)

    def _timestamp_ms(self) -> dt.datetime:
        ms = _TS_MIN_US // 1000 + int(self.rng.random() * (_TS_MAX_US - _TS_MIN_US) / 1000)
        return EPOCH_DT + dt.timedelta(milliseconds=ms)

    def _truncate_ns(self, col: ColumnSpec, ns: int) -> int:
        """``ns`` cut to the column's precision in this flavour's source database."""
        unit = 10 ** (9 - col.precision_for(self.config.flavour))
        return ns - ns % unit

    def _time_of_day(self, col: ColumnSpec) -> int:
        r = self.rng.random()
        if r < 0.05:  # midnight and the last representable instant of the day
            return self._truncate_ns(col, _pick(self.rng, (0, _NS_PER_DAY - 1)))
        return self._truncate_ns(col, self.rng.randrange(_NS_PER_DAY))

    def _timestamp_ns(self, col: ColumnSpec) -> int:
        return self._truncate_ns(col, self.rng.randrange(_TS_MIN_NS, _TS_MAX_NS))

    def _zoned(self, col: ColumnSpec) -> ZonedValue:
        ns = self._timestamp_ns(col)
        offset = _pick(self.rng, _OFFSETS)
        # Db2 has no zoned type: the column holds the UTC time only.
        return ZonedValue(ns, 0 if self.config.flavour == "db2" else offset)

    def _xml(self) -> str:
        rng = self.rng
        items = "".join(
            f'<item sku="SKU-{int(rng.random() * 1000):03d}" qty="{1 + int(rng.random() * 9)}">'
            f"{_escape_xml(_pick(rng, _XML_ITEMS))}</item>"
            for _ in range(1 + int(rng.random() * 3))
        )
        newline = "\n" if rng.random() < 0.3 else ""
        return f'<?xml version="1.0"?>{newline}<slip n="{int(rng.random() * 10**6)}">{items}</slip>'

    def _note(self) -> str:
        rng = self.rng
        if rng.random() < 0.6:
            return _pick(rng, _NOTES)
        return f"note #{int(rng.random() * 10_000)} ✓ «{_pick(rng, _LAST_NAMES)}»"

    def _int16(self) -> int:
        r = self.rng.random()
        if r < 0.05:
            return _pick(self.rng, (-32768, 32767, 0))
        return 1 + int(self.rng.random() * 500)

    def _int32(self) -> int:
        r = self.rng.random()
        if r < 0.05:
            return _pick(self.rng, (-2_147_483_648, 2_147_483_647, 0, -1))
        return 1 + int(self.rng.random() * 1000)

    def _customer_ref(self) -> int:
        customers = self.tables["customers"]
        if len(customers) and self.rng.random() < 0.9:
            return customers.random_key(self.rng)[0]  # type: ignore[return-value]
        return 1 + int(self.rng.random() * 2_147_483_646)

    def _value(self, table: str, col: ColumnSpec, null_probability: float) -> object:
        if col.nullable and self.rng.random() < null_probability:
            return None
        value = self._generators[table][col.name]()
        if value == "" and self._empty_string_is_null:
            return None
        return value

    # -------------------------------------------------------------------- rows
    def _new_key(self, table: str) -> Row:
        if table == "customers":
            key: Row = {"id": self._next_customer_id}
            self._next_customer_id += 1
        elif table == "orders":
            key = {"order_id": self._next_order_id}
            self._next_order_id += 1 + int(self.rng.random() * 3)
        else:
            orders = self.tables["orders"]
            if len(orders) and self.rng.random() < 0.9:
                order_id = orders.random_key(self.rng)[0]
            else:
                order_id = self._next_order_id + self.rng.randrange(1_000, 1_000_000)
            line_no = self._next_line_no.get(order_id, 1)
            self._next_line_no[order_id] = line_no + 1
            key = {"order_id": order_id, "line_no": line_no}
        return key

    def _new_row(self, table: str) -> Row:
        row = self._new_key(table)
        for col in self._non_key[table]:
            row[col.name] = self._value(table, col, 0.1)
        return {c: row[c] for c in self._names[table]}

    # ------------------------------------------------------------ schema evolution
    def _alter(
        self, table: str, spec: TableSpec, added: tuple[str, ...], dropped: tuple[str, ...]
    ) -> Transaction:
        """Change a table's definition: new rows follow ``spec``; existing rows get null
        in added columns (``ALTER TABLE ... ADD`` without default) and lose dropped ones."""
        self.specs[table] = spec
        self._non_key[table] = spec.non_key_columns
        self._names[table] = spec.column_names
        rows = self.tables[table]
        for key, row in list(rows.rows.items()):
            rows.rows[key] = {c: row.get(c) for c in spec.column_names}
        self.clock_ms += 1 + int(self.rng.random() * 1000)
        self._tx_seq += 1
        ddl = SchemaChange(table, "ALTER", spec, added, dropped)
        return Transaction(self._tx_seq, self.clock_ms, [], ddl=[ddl])

    def _add_column(self) -> Transaction:
        table, column = ADDED_COLUMN
        spec = self.specs[table]
        new = TableSpec(spec.name, [*spec.columns, column], spec.key)
        return self._alter(table, new, (column.name,), ())

    def _drop_column(self) -> Transaction:
        table, name = DROPPED_COLUMN
        spec = self.specs[table]
        new = TableSpec(spec.name, [c for c in spec.columns if c.name != name], spec.key)
        return self._alter(table, new, (), (name,))

    # ------------------------------------------------------- incremental snapshots
    def _start_incremental(self) -> None:
        """A signal asks for an ad-hoc incremental snapshot of every table."""
        self._incremental = _IncrementalSnapshot(tables=list(TABLES))

    def _read_chunk(self, seq: int) -> None:
        """Read the next chunk (primary-key order) as of now and open its window."""
        inc = self._incremental
        assert inc is not None
        size = self.config.incremental_chunk_size
        while inc.tables and not inc.window:
            table = inc.tables[0]
            rows = self.tables[table].rows
            if inc.last_key is None:  # the snapshot of this table starts: fix its end
                inc.max_key = max(rows, key=_sort_key, default=None)
            keys = sorted(
                (
                    k
                    for k in rows
                    if (inc.last_key is None or _sort_key(k) > _sort_key(inc.last_key))
                    and inc.max_key is not None
                    and _sort_key(k) <= _sort_key(inc.max_key)
                ),
                key=_sort_key,
            )[:size]
            if not keys:
                inc.tables.pop(0)
                inc.last_key = inc.max_key = None
                continue
            inc.last_key = keys[-1]
            for k in keys:
                inc.window[(table, k)] = Change("r", table, None, dict(rows[k]))
        if not inc.window:
            self._incremental = None
            return
        inc.read_seq, inc.read_ts = seq, self.clock_ms
        inc.window_left = int(self.rng.random() * 3)

    def _deduplicate(self, tx: Transaction) -> None:
        """A streamed change to a key of the open window discards that key's read."""
        inc = self._incremental
        assert inc is not None
        for change in tx.changes:
            for image in (change.before, change.after):
                if image is not None:
                    key = self.key_of(self.specs[change.table], image)
                    if inc.window.pop((change.table, key), None) is not None:
                        self.incremental_reads_discarded += 1

    def _close_window(self) -> Transaction:
        inc = self._incremental
        assert inc is not None
        reads = list(inc.window.values())
        inc.window = {}
        inc.window_left = -1
        if not inc.tables:
            self._incremental = None
        return Transaction(inc.read_seq, inc.read_ts, reads, snapshot=True, incremental=True)

    def _incremental_step(self, tx: Transaction, txs: list[Transaction]) -> None:
        """After streamed transaction ``tx``: deduplicate, close or open a window."""
        inc = self._incremental
        if inc is None:
            return
        if inc.window_left >= 0:
            self._deduplicate(tx)
            if inc.window_left == 0:
                txs.append(self._close_window())
            else:
                inc.window_left -= 1
            return
        if self.rng.random() < 0.6:
            self._read_chunk(tx.seq)
            inc = self._incremental
            if inc is not None and inc.window_left == 0:
                txs.append(self._close_window())

    @staticmethod
    def key_of(spec: TableSpec, row: Row) -> Key:
        return tuple(row[c] for c in spec.key)

    # ----------------------------------------------------------------- changes
    def _insert(self, table: str, changes: list[Change]) -> None:
        row = self._new_row(table)
        self.tables[table].put(self.key_of(TABLES[table], row), row)
        changes.append(Change("c", table, None, row))

    def _update(self, table: str, changes: list[Change]) -> None:
        rows = self.tables[table]
        key = rows.random_key(self.rng)
        old = rows.rows[key]
        new = dict(old)
        rng = self.rng
        cols = self._non_key[table]
        k = min(len(cols), 1 + int(rng.random() * 3))
        picked: list[ColumnSpec] = []
        while len(picked) < k:
            col = _pick(rng, cols)
            if col not in picked:
                picked.append(col)
        for col in picked:
            new[col.name] = self._value(table, col, 0.2)
        rows.put(key, new)
        changes.append(Change("u", table, old, new))

    def _delete(self, table: str, changes: list[Change]) -> None:
        rows = self.tables[table]
        old = rows.remove(rows.random_key(self.rng))
        changes.append(Change("d", table, old, None))

    def _pk_change(self, table: str, changes: list[Change]) -> None:
        assert table == "customers"
        rows = self.tables[table]
        old = rows.remove(rows.random_key(self.rng))
        new = dict(old)
        new["id"] = self._next_customer_id
        self._next_customer_id += 1
        rows.put((new["id"],), new)
        changes.append(Change("d", table, old, None))
        changes.append(Change("c", table, None, new, same_position=True))

    def _truncate(self, table: str, changes: list[Change]) -> None:
        self.tables[table].clear()
        changes.append(Change("t", table, None, None))

    def _random_change(self, changes: list[Change]) -> None:
        rng = self.rng
        r = rng.random()
        table = "customers" if r < 0.25 else "orders" if r < 0.6 else "order_lines"
        if not len(self.tables[table]):
            self._insert(table, changes)
            return
        if table == "customers" and rng.random() < self.config.pk_change_probability:
            self._pk_change(table, changes)
            return
        r = rng.random()
        if r < 0.4:
            self._insert(table, changes)
        elif r < 0.8:
            self._update(table, changes)
        else:
            self._delete(table, changes)

    def _next_transaction(self, force_truncate: bool) -> Transaction:
        rng = self.rng
        self.clock_ms += 1 + int(rng.random() * 4000)
        self._tx_seq += 1
        changes: list[Change] = []
        p = self.config.truncate_probability
        if force_truncate or (p > 0 and rng.random() < p):
            self._truncate("order_lines", changes)
        else:
            for _ in range(1 + int(rng.random() * 5)):
                self._random_change(changes)
        return Transaction(self._tx_seq, self.clock_ms, changes)

    # ------------------------------------------------------------------ public
    def initial_snapshot(self) -> Transaction:
        """Populate the initial rows (not captured) and read them as a snapshot."""
        for table, spec in TABLES.items():
            rows = self.tables[table]
            for _ in range(self.config.initial_rows.get(table, 0)):
                row = self._new_row(table)
                rows.put(self.key_of(spec, row), row)
        self.clock_ms += 1000 + int(self.rng.random() * 60_000)
        changes = [
            Change("r", table, None, row)
            for table in TABLES
            for row in self.tables[table].rows.values()
        ]
        return Transaction(0, self.clock_ms, changes, snapshot=True)

    def resnapshot(self) -> Transaction:
        """Capture was down: the source deleted rows of every table (not captured); then a
        blocking snapshot re-reads every table (``SimConfig.resnapshot_*``)."""
        config = self.config
        uncaptured: list[Change] = []
        for table in TABLES:
            for _ in range(min(config.resnapshot_deletes, len(self.tables[table]))):
                self._delete(table, uncaptured)
        self.clock_ms += 1000 + int(self.rng.random() * 60_000)
        changes = [
            Change("r", table, None, dict(row))
            for table in TABLES
            for row in self.tables[table].rows.values()
        ]
        if not config.resnapshot_complete:
            changes = changes[: len(changes) * 2 // 3]
        return Transaction(
            0,
            self.clock_ms,
            changes,
            snapshot=True,
            complete=config.resnapshot_complete,
            uncaptured=uncaptured,
        )

    def generate_batch(self) -> list[Transaction]:
        """Next batch of committed transactions (batch 0 starts with the snapshot)."""
        index = self._batches_done
        self._batches_done += 1
        txs: list[Transaction] = []
        config = self.config
        if index == 0:
            if config.schema_change_topic:
                creates = [SchemaChange(t, "CREATE", spec) for t, spec in self.specs.items()]
                txs.append(Transaction(0, self.clock_ms, [], ddl=creates))
            txs.append(self.initial_snapshot())
        if index == config.resnapshot_batch:
            txs.append(self.resnapshot())
        n = config.transactions
        forced = -1
        if index == 0 and n > 0 and config.truncate_probability > 0:
            forced = self.rng.randrange(n)
        evolve = {n // 3: self._add_column, (2 * n) // 3: self._drop_column}
        if config.evolve_batch != index:
            evolve = {}
        signal = -1
        if index in config.incremental_snapshot_batches and n > 0:
            signal = self.rng.randrange(max(1, n // 2))
        for i in range(n):
            if i in evolve:
                if self._incremental is not None and self._incremental.window_left >= 0:
                    txs.append(self._close_window())
                txs.append(evolve[i]())
            if i == signal:
                self._start_incremental()
            tx = self._next_transaction(force_truncate=i == forced)
            txs.append(tx)
            self._incremental_step(tx, txs)
        if self._incremental is not None and self._incremental.window_left >= 0:
            txs.append(self._close_window())
        return txs

    def expected_state(self) -> State:
        """Deep copy of every table: logical name -> key tuple -> row (logical names)."""
        return {t: {k: dict(r) for k, r in rows.rows.items()} for t, rows in self.tables.items()}

    def write_expected(self, path: str | Path) -> Path:
        return write_expected(self.expected_state(), path)


# ---------------------------------------------------------------- expected JSON
def json_value(value: object) -> object:
    """Human-readable JSON form: dates/timestamps ISO, decimals as strings."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, ZonedValue):
        return {"epoch_ns": value.epoch_ns, "offset_minutes": value.offset_minutes}
    return value


def state_to_jsonable(state: State) -> dict[str, list[dict[str, object]]]:
    """Tables -> rows sorted by key, values made JSON-friendly."""
    out: dict[str, list[dict[str, object]]] = {}
    for table, rows in state.items():
        out[table] = [
            {c: json_value(v) for c, v in rows[k].items()} for k in sorted(rows, key=_sort_key)
        ]
    return out


def _sort_key(key: Iterable[object]) -> tuple[object, ...]:
    return tuple((v is None, v) for v in key)


def write_expected(state: State, path: str | Path) -> Path:
    """Dump an expected state as JSON (UTF-8, newline-terminated)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(state_to_jsonable(state), ensure_ascii=False, indent=2)
    p.write_text(text + "\n", encoding="utf-8", newline="\n")
    return p


__all__ = [
    "ADDED_COLUMN",
    "DROPPED_COLUMN",
    "Change",
    "SchemaChange",
    "Key",
    "Row",
    "SourceDatabase",
    "State",
    "Transaction",
    "decimal_from_unscaled",
    "state_to_jsonable",
    "write_expected",
]
