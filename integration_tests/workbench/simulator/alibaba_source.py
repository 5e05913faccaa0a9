"""A MySQL-like source database for the Alibaba-style simulators (DataWorks, Canal, Maxwell).

The workload is shared by every emitter: the same :class:`AlibabaSimConfig` gives the same
statements whatever the output format. The source keeps its own table state by executing
each statement on Python rows; that state (never the emitted messages) is the oracle.

Tables (``ITEMS``, ``ACCOUNTS``, ``EVENTS``):

* ``items``: primary key ``id`` and one column of every DataWorks type (BOOLEAN, DOUBLE,
  LONG, STRING, DATE as a DATETIME and as a DATE, BYTES); gains ``note`` mid-stream
  (``ALTER TABLE ... ADD COLUMN``) in :attr:`AlibabaSimConfig.alter_batch`.
* ``accounts``: composite primary key (``region`` STRING, ``account_no`` LONG).
* ``events``: no primary key. Identical rows occur. Internally each row has a hidden row id
  (MySQL RDS ``#alibaba_rds_row_id#``) that DataWorks shows and Canal/Maxwell do not.

Source values: LONG int, BOOLEAN bool, DOUBLE float, STRING str, DATE int epoch
milliseconds (UTC; whole seconds for DATETIME, midnight for DATE), BYTES bytes.

A stored row is the *last row image*: the columns the table had when the row was last
written. A column added later is absent from rows not written since (not null).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

BOOLEAN = "BOOLEAN"
DOUBLE = "DOUBLE"
LONG = "LONG"
STRING = "STRING"
DATE = "DATE"
BYTES = "BYTES"
DW_TYPES: tuple[str, ...] = (BOOLEAN, DOUBLE, LONG, STRING, DATE, BYTES)

ROW_ID = "#alibaba_rds_row_id#"
CLOCK_START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z

Row = dict[str, object]
Key = tuple[object, ...]


@dataclass(frozen=True)
class AliColumn:
    """One MySQL column: DataWorks type, MySQL column type (Canal ``mysqlType``) and the
    JDBC type code (Canal ``sqlType``)."""

    name: str
    dw_type: str
    mysql_type: str
    sql_type: int
    nullable: bool = True


@dataclass(frozen=True)
class AliTable:
    name: str
    columns: tuple[AliColumn, ...]
    key: tuple[str, ...] | None  # None: no primary key

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> AliColumn:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def non_key_columns(self) -> tuple[AliColumn, ...]:
        return tuple(c for c in self.columns if c.name not in (self.key or ()))


ITEMS = AliTable(
    "items",
    (
        AliColumn("id", LONG, "bigint(20)", -5, nullable=False),
        AliColumn("is_active", BOOLEAN, "tinyint(1)", -6),
        AliColumn("price", DOUBLE, "double", 8),
        AliColumn("quantity", LONG, "int(11)", 4),
        AliColumn("title", STRING, "varchar(255)", 12),
        AliColumn("created_at", DATE, "datetime", 93),
        AliColumn("ship_date", DATE, "date", 91),
        AliColumn("payload", BYTES, "varbinary(64)", -3),
    ),
    ("id",),
)
ACCOUNTS = AliTable(
    "accounts",
    (
        AliColumn("region", STRING, "varchar(16)", 12, nullable=False),
        AliColumn("account_no", LONG, "bigint(20)", -5, nullable=False),
        AliColumn("owner", STRING, "varchar(64)", 12),
        AliColumn("balance", DOUBLE, "double", 8),
        AliColumn("opened", DATE, "date", 91),
    ),
    ("region", "account_no"),
)
EVENTS = AliTable(
    "events",
    (
        AliColumn("level", STRING, "varchar(8)", 12),
        AliColumn("message", STRING, "varchar(255)", 12),
        AliColumn("amount", DOUBLE, "double", 8),
        AliColumn("seen", BOOLEAN, "tinyint(1)", -6),
    ),
    None,
)
ALI_TABLES: dict[str, AliTable] = {t.name: t for t in (ITEMS, ACCOUNTS, EVENTS)}
ADDED_COLUMN = ("items", AliColumn("note", STRING, "varchar(64)", 12))

DEFAULT_INITIAL_ROWS: Mapping[str, int] = {"items": 24, "accounts": 8, "events": 6}

_TITLES = (
    "scooter", "car battery", "café ✓", 'He said "hi"', "line1\nline2", "tab\there",
    "emoji 🚀", "", "日本語", "back\\slash", "null", "  spaces  ",
)  # fmt: skip
_OWNERS = ("Anne", "José", "李", "O'Brien", "Zoë", "van der Berg")
_REGIONS = ("cn-hangzhou", "cn-beijing", "ap-south-1", "eu-central-1")
_LEVELS = ("INFO", "WARN", "ERROR")
_MESSAGES = ("started", "stopped", "retry", "done", "timeout")
_NOTES = ("n/a", "fragile", "gift 🎁", "")
# Doubles whose Java text needs scientific notation (Canal's String.valueOf(double)).
_ODD_DOUBLES = (0.0, -0.0, 1.0, 1e7, 12345678.9, 0.0005, -2.5e-7, 1.5e20)


@dataclass(frozen=True)
class AlibabaSimConfig:
    """The workload (same config -> same statements, whatever the emitter)."""

    seed: int = 1
    database: str = "simdb"
    batches: int = 3
    transactions: int = 40
    """Transactions per batch (after the initial load in batch 0)."""
    initial_rows: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_INITIAL_ROWS))
    truncate_probability: float = 0.03
    """Chance of a TRUNCATE per transaction; the last batch forces one when none came
    before, unless this is 0 (no truncate at all: Maxwell writes nothing for one)."""
    pk_change_probability: float = 0.05
    alter_batch: int | None = 1
    """Batch whose first statement is ``ALTER TABLE items ADD COLUMN note`` (None: never)."""
    redeliver_fraction: float = 0.0
    """Share of redeliverable message groups published again later (at-least-once)."""

    def __post_init__(self) -> None:
        if self.batches < 1 or self.transactions < 0:
            raise ValueError("batches must be >= 1 and transactions >= 0")
        for name in ("truncate_probability", "pk_change_probability", "redeliver_fraction"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be within [0, 1]")
        if self.alter_batch is not None and not 0 <= self.alter_batch < self.batches:
            raise ValueError("alter_batch must name one of the batches")
        if set(self.initial_rows) - set(ALI_TABLES):
            raise ValueError(f"initial_rows names unknown tables: {set(self.initial_rows)}")


@dataclass(slots=True)
class RowChange:
    """One row of a statement. ``before``/``after`` are full images in the table's current
    columns (``None`` for an insert's before / a delete's after). ``row_id`` is the hidden
    row id (every table has one; DataWorks shows it for tables without a primary key)."""

    row_id: int
    before: Row | None
    after: Row | None


@dataclass(slots=True)
class Statement:
    """``INSERT``/``UPDATE``/``DELETE`` (``rows``), ``TRUNCATE``, ``CREATE`` or ``ALTER``
    (``sql`` text; ``spec`` is the table definition after the statement)."""

    kind: str
    table: str
    spec: AliTable
    rows: list[RowChange] = field(default_factory=list)
    sql: str = ""

    @property
    def is_ddl(self) -> bool:
        return self.kind in ("CREATE", "ALTER", "TRUNCATE")


@dataclass(slots=True)
class SourceTx:
    """Statements committed together at source time ``ts_ms``. ``initial``: the rows that
    exist when capture starts (DataWorks reads them in its full load)."""

    seq: int
    ts_ms: int
    statements: list[Statement]
    initial: bool = False

    @property
    def row_changes(self) -> int:
        return sum(len(s.rows) for s in self.statements)


def create_sql(spec: AliTable) -> str:
    cols = [f"  `{c.name}` {c.mysql_type}{'' if c.nullable else ' NOT NULL'}" for c in spec.columns]
    if spec.key:
        cols.append("  PRIMARY KEY (" + ", ".join(f"`{k}`" for k in spec.key) + ")")
    return f"CREATE TABLE `{spec.name}` (\n" + ",\n".join(cols) + "\n)"


class AlibabaSource:
    """The source database: tables (row id -> last row image) and the random workload."""

    def __init__(self, config: AlibabaSimConfig) -> None:
        self.config = config
        self.rng = random.Random(f"alibaba:{config.seed}")
        self.specs: dict[str, AliTable] = dict(ALI_TABLES)
        self.tables: dict[str, dict[int, Row]] = {t: {} for t in ALI_TABLES}
        self.clock_ms = CLOCK_START_MS + self.rng.randrange(86_400_000)
        self._seq = 0
        self._next_row_id = 1
        self._next_item_id = 1
        self._next_account_no = 1000
        self._deleted: dict[str, list[Key]] = {t: [] for t in ALI_TABLES}
        self._batch = 0
        self._truncated = False

    # ------------------------------------------------------------------ values
    def _value(self, col: AliColumn, null_probability: float = 0.1) -> object:
        rng = self.rng
        if col.nullable and rng.random() < null_probability:
            return None
        t = col.dw_type
        if t == BOOLEAN:
            return rng.random() < 0.5
        if t == DOUBLE:
            if rng.random() < 0.15:
                return rng.choice(_ODD_DOUBLES)
            return round(rng.uniform(-1000.0, 100_000.0), 2)
        if t == LONG:
            return rng.randrange(-1000, 1_000_000)
        if t == DATE:
            if col.mysql_type == "date":
                day = dt.date(1990, 1, 1).toordinal() + rng.randrange(20_000)
                return (day - dt.date(1970, 1, 1).toordinal()) * 86_400_000
            return (self.clock_ms // 1000 - rng.randrange(400_000_000)) * 1000
        if t == BYTES:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 12)))
        if col.name == "title":
            return rng.choice(_TITLES)
        if col.name == "owner":
            return rng.choice(_OWNERS)
        if col.name == "level":
            return rng.choice(_LEVELS)
        if col.name == "message":
            return rng.choice(_MESSAGES)
        if col.name == "note":
            return rng.choice(_NOTES)
        return rng.choice(_REGIONS)

    def full_row(self, table: str, row: Row) -> Row:
        """``row`` in the table's current columns (a column added since: null)."""
        return {c: row.get(c) for c in self.specs[table].column_names}

    def key_of(self, table: str, row_id: int, row: Row) -> Key:
        key = self.specs[table].key
        return (row_id,) if key is None else tuple(row[k] for k in key)

    def _new_row(self, table: str) -> Row:
        spec = self.specs[table]
        rng = self.rng
        row: Row = {}
        deleted = self._deleted[table]
        if table == "items":
            if deleted and rng.random() < 0.35:
                row["id"] = deleted.pop(rng.randrange(len(deleted)))[0]
            else:
                row["id"] = self._next_item_id
                self._next_item_id += 1
        elif table == "accounts":
            if deleted and rng.random() < 0.35:
                row["region"], row["account_no"] = deleted.pop(rng.randrange(len(deleted)))
            else:
                row["region"] = rng.choice(_REGIONS)
                row["account_no"] = self._next_account_no
                self._next_account_no += 1
        elif self.tables[table] and rng.random() < 0.3:  # an identical copy of a row
            return dict(rng.choice(list(self.tables[table].values())))
        for col in spec.non_key_columns:
            row[col.name] = self._value(col)
        return {c: row[c] for c in spec.column_names}

    # --------------------------------------------------------------- statements
    def _insert(self, table: str, count: int) -> Statement:
        st = Statement("INSERT", table, self.specs[table])
        for _ in range(count):
            row = self._new_row(table)
            row_id = self._next_row_id
            self._next_row_id += 1
            self.tables[table][row_id] = row
            st.rows.append(RowChange(row_id, None, dict(row)))
        return st

    def _pick_rows(self, table: str, count: int) -> list[int]:
        ids = list(self.tables[table])
        return self.rng.sample(ids, min(count, len(ids)))

    def _update(self, table: str, count: int) -> Statement | None:
        spec = self.specs[table]
        rng = self.rng
        st = Statement("UPDATE", table, spec)
        for row_id in self._pick_rows(table, count):
            old = self.full_row(table, self.tables[table][row_id])
            new = dict(old)
            cols = list(spec.non_key_columns)
            for col in rng.sample(cols, min(len(cols), 1 + rng.randrange(3))):
                new[col.name] = self._value(col, null_probability=0.25)
            if table == "items" and rng.random() < self.config.pk_change_probability:
                new["id"] = self._next_item_id
                self._next_item_id += 1
                self._deleted[table].append((old["id"],))
            if new == old:  # MySQL logs no row image for an unchanged row
                continue
            self.tables[table][row_id] = new
            st.rows.append(RowChange(row_id, old, dict(new)))
        return st if st.rows else None

    def _delete(self, table: str, count: int) -> Statement | None:
        st = Statement("DELETE", table, self.specs[table])
        for row_id in self._pick_rows(table, count):
            old = self.full_row(table, self.tables[table].pop(row_id))
            if self.specs[table].key is not None:
                self._deleted[table].append(self.key_of(table, row_id, old))
            st.rows.append(RowChange(row_id, old, None))
        return st if st.rows else None

    def _truncate(self, table: str) -> Statement:
        spec = self.specs[table]
        for row_id, row in self.tables[table].items():
            if spec.key is not None:
                self._deleted[table].append(self.key_of(table, row_id, row))
        self.tables[table].clear()
        self._truncated = True
        return Statement("TRUNCATE", table, spec, sql=f"TRUNCATE TABLE `{table}`")

    def _alter(self) -> Statement:
        table, col = ADDED_COLUMN
        spec = self.specs[table]
        new = AliTable(spec.name, (*spec.columns, col), spec.key)
        self.specs[table] = new
        sql = f"ALTER TABLE `{table}` ADD COLUMN `{col.name}` {col.mysql_type} NULL"
        return Statement("ALTER", table, new, sql=sql)

    def _random_statement(self) -> Statement | None:
        rng = self.rng
        table = rng.choices(("items", "accounts", "events"), (5, 3, 3))[0]
        r = rng.random()
        size = 1 + int(rng.random() ** 2 * 4)  # mostly single rows, up to 4
        if r < 0.4 or not self.tables[table]:
            return self._insert(table, size)
        if r < 0.8:
            return self._update(table, size)
        return self._delete(table, size)

    def _tick(self) -> int:
        """Advance the source clock (several transactions often share one second)."""
        self.clock_ms += self.rng.choice((0, 1, 3, 40, 250, 700, 1300, 2100))
        return self.clock_ms

    def _tx(self, statements: list[Statement], initial: bool = False) -> SourceTx:
        self._seq += 1
        return SourceTx(self._seq, self._tick(), statements, initial)

    # ------------------------------------------------------------------ batches
    def initial_load(self) -> list[SourceTx]:
        """CREATE TABLE for every table, then the rows present when capture starts."""
        txs = [
            self._tx([Statement("CREATE", t, s, sql=create_sql(s))]) for t, s in self.specs.items()
        ]
        loads = [self._insert(t, n) for t, n in self.config.initial_rows.items() if n > 0]
        txs.append(self._tx(loads, initial=True))
        return txs

    def generate_batch(self) -> list[SourceTx]:
        """The next batch of transactions (batch 0 starts with :meth:`initial_load`)."""
        config, rng = self.config, self.rng
        txs: list[SourceTx] = self.initial_load() if self._batch == 0 else []
        if config.alter_batch == self._batch:
            txs.append(self._tx([self._alter()]))
        last = self._batch == config.batches - 1
        for i in range(config.transactions):
            force = (
                last
                and i == config.transactions // 2
                and not self._truncated
                and config.truncate_probability > 0
            )
            if force or rng.random() < config.truncate_probability:
                txs.append(self._tx([self._truncate(rng.choice(("accounts", "events")))]))
                continue
            statements = [self._random_statement() for _ in range(1 + int(rng.random() ** 2 * 3))]
            kept = [s for s in statements if s is not None]
            if kept:
                txs.append(self._tx(kept))
        self._batch += 1
        return txs

    def state(self) -> dict[str, dict[int, Row]]:
        """Deep copy of every table: row id -> last row image."""
        return {t: {i: dict(r) for i, r in rows.items()} for t, rows in self.tables.items()}
