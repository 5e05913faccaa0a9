"""Logical table and column specifications shared by the source DB and the emitters."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# Logical column types understood by the simulator. Source values: int for the integers,
# str, bool, Decimal, datetime.date; ``timestamp`` datetime.datetime (precision 3 or 6);
# ``timestamp_ns`` int nanoseconds since the epoch (zone-less, read as UTC);
# ``timestamp_tz`` :class:`ZonedValue`; ``time`` int nanoseconds since midnight;
# ``xml`` str (an XML document).
INT16 = "int16"
INT32 = "int32"
INT64 = "int64"
STRING = "string"
BOOLEAN = "boolean"
DECIMAL = "decimal"
DATE = "date"
TIMESTAMP = "timestamp"
TIMESTAMP_NS = "timestamp_ns"
TIMESTAMP_TZ = "timestamp_tz"
TIME = "time"
XML = "xml"

COLUMN_TYPES = frozenset(
    {
        INT16, INT32, INT64, STRING, BOOLEAN, DECIMAL, DATE, TIMESTAMP,
        TIMESTAMP_NS, TIMESTAMP_TZ, TIME, XML,
    }
)  # fmt: skip
# Types whose fractional-second precision may differ per connector (the DDL differs).
_FLAVOUR_PRECISION_TYPES = frozenset({TIMESTAMP_NS, TIMESTAMP_TZ, TIME})


@dataclass(frozen=True, slots=True)
class ZonedValue:
    """A timestamp with time zone: the instant (ns since the epoch, UTC) and the UTC offset
    (minutes) the source wrote it with."""

    epoch_ns: int
    offset_minutes: int = 0


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a logical table.

    ``precision``/``scale`` are used by ``decimal`` columns; for ``timestamp`` columns
    ``precision`` is the number of fractional-second digits (3 or 6). ``timestamp_ns``,
    ``timestamp_tz`` and ``time`` columns have a fractional-second precision (0-9) per
    connector flavour in ``flavour_precision`` (the same logical column has a different
    type in each source database, e.g. Oracle DATE vs SQL Server DATETIME2(7)).
    """

    name: str
    type: str
    nullable: bool
    precision: int | None = None
    scale: int | None = None
    flavour_precision: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.type not in COLUMN_TYPES:
            raise ValueError(f"unknown column type {self.type!r}")
        if self.type == DECIMAL and (self.precision is None or self.scale is None):
            raise ValueError(f"decimal column {self.name!r} needs precision and scale")
        if self.type == TIMESTAMP and self.precision not in (3, 6):
            raise ValueError(f"timestamp column {self.name!r} needs precision 3 or 6")
        if self.type in _FLAVOUR_PRECISION_TYPES:
            if set(self.flavour_precision) != {"oracle", "sqlserver", "db2"}:
                raise ValueError(f"column {self.name!r} needs a precision for every flavour")
            if not all(0 <= p <= 9 for p in self.flavour_precision.values()):
                raise ValueError(f"column {self.name!r}: precisions must be within [0, 9]")

    def precision_for(self, flavour: str) -> int:
        """Fractional-second digits of this column in a flavour's source database."""
        if self.type in _FLAVOUR_PRECISION_TYPES:
            return self.flavour_precision[flavour]
        assert self.precision is not None, self.name
        return self.precision


@dataclass(frozen=True)
class TableSpec:
    """A logical table: lowercase name, ordered columns and primary-key column names."""

    name: str
    columns: list[ColumnSpec]
    key: tuple[str, ...]

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def non_key_columns(self) -> list[ColumnSpec]:
        return [c for c in self.columns if c.name not in self.key]

    def column(self, name: str) -> ColumnSpec:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)


CUSTOMERS = TableSpec(
    name="customers",
    columns=[
        ColumnSpec("id", INT32, False),
        ColumnSpec("first_name", STRING, False),
        ColumnSpec("last_name", STRING, False),
        ColumnSpec("email", STRING, True),
        ColumnSpec("balance", DECIMAL, True, precision=12, scale=2),
        ColumnSpec("birth_date", DATE, True),
        ColumnSpec("created_at", TIMESTAMP, False, precision=6),
        ColumnSpec("is_active", BOOLEAN, False),
        # Oracle: VARCHAR2 'HH:MM:SS.ffffff' (no TIME type); SQL Server TIME(7); Db2 TIME.
        ColumnSpec(
            "contact_time", TIME, True, flavour_precision={"oracle": 6, "sqlserver": 7, "db2": 0}
        ),
        # Oracle TIMESTAMP(9) WITH TIME ZONE, SQL Server DATETIMEOFFSET(7); Db2 has no zoned
        # type: TIMESTAMP(9) holding UTC.
        ColumnSpec(
            "last_seen_at",
            TIMESTAMP_TZ,
            True,
            flavour_precision={"oracle": 9, "sqlserver": 7, "db2": 9},
        ),
    ],
    key=("id",),
)

ORDERS = TableSpec(
    name="orders",
    columns=[
        ColumnSpec("order_id", INT64, False),
        ColumnSpec("customer_id", INT32, False),
        ColumnSpec("amount", DECIMAL, True, precision=18, scale=4),
        ColumnSpec("status", STRING, False),
        ColumnSpec("ordered_at", TIMESTAMP, False, precision=3),
        ColumnSpec("note", STRING, True),
        ColumnSpec("quantity", INT16, False),
        # Oracle DATE, SQL Server DATETIME2(7), Db2 TIMESTAMP(6).
        ColumnSpec(
            "shipped_at",
            TIMESTAMP_NS,
            True,
            flavour_precision={"oracle": 0, "sqlserver": 7, "db2": 6},
        ),
        # Oracle: VARCHAR2 'HH:MM:SS.ffffff'; SQL Server TIME(6); Db2 TIME.
        ColumnSpec(
            "promised_time", TIME, True, flavour_precision={"oracle": 6, "sqlserver": 6, "db2": 0}
        ),
        ColumnSpec("ledger_amount", DECIMAL, True, precision=38, scale=9),
        ColumnSpec("packing_slip", XML, True),
    ],
    key=("order_id",),
)

ORDER_LINES = TableSpec(
    name="order_lines",
    columns=[
        ColumnSpec("order_id", INT64, False),
        ColumnSpec("line_no", INT32, False),
        ColumnSpec("sku", STRING, False),
        ColumnSpec("qty", INT32, False),
        ColumnSpec("unit_price", DECIMAL, False, precision=10, scale=2),
    ],
    key=("order_id", "line_no"),
)

TABLES: dict[str, TableSpec] = {t.name: t for t in (CUSTOMERS, ORDERS, ORDER_LINES)}
"""Logical table name -> spec, in snapshot order."""
