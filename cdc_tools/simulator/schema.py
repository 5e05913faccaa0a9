"""Logical table and column specifications shared by the source DB and the emitters."""

from __future__ import annotations

from dataclasses import dataclass

# Logical column types understood by the simulator.
INT16 = "int16"
INT32 = "int32"
INT64 = "int64"
STRING = "string"
BOOLEAN = "boolean"
DECIMAL = "decimal"
DATE = "date"
TIMESTAMP = "timestamp"

COLUMN_TYPES = frozenset({INT16, INT32, INT64, STRING, BOOLEAN, DECIMAL, DATE, TIMESTAMP})


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a logical table.

    ``precision``/``scale`` are used by ``decimal`` columns; for ``timestamp`` columns
    ``precision`` is the number of fractional-second digits (3 or 6).
    """

    name: str
    type: str
    nullable: bool
    precision: int | None = None
    scale: int | None = None

    def __post_init__(self) -> None:
        if self.type not in COLUMN_TYPES:
            raise ValueError(f"unknown column type {self.type!r}")
        if self.type == DECIMAL and (self.precision is None or self.scale is None):
            raise ValueError(f"decimal column {self.name!r} needs precision and scale")
        if self.type == TIMESTAMP and self.precision not in (3, 6):
            raise ValueError(f"timestamp column {self.name!r} needs precision 3 or 6")


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
