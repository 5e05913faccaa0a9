"""MariaDB's rows in the normal forms that gold's are compared in (workbench.realdb.compare).

Debezium's MariaDB connector with its defaults (`decimal.handling.mode=precise`,
`time.precision.mode=adaptive_time_microseconds`, `bigint.unsigned.handling.mode=long`,
`binary.handling.mode=bytes`) encodes each type as below; `captured_rows._cdc_row_json`
decodes the semantic types of docs/contracts.md when the message carries its schema. Each
normal form is built here from the database's own value (`SELECT` on the table):

| MariaDB type | schemas on (decoded by the message's schema) | schemas off (as carried) |
| --- | --- | --- |
| tinyint .. int, unsigned, tinyint(1) (boolean) | the number | the number |
| bigint | the number | the number |
| bigint unsigned | the number, past 2^63-1 wrapped to the negative long (1) | the same |
| decimal(p,s) | decimal text at scale s (`"123.40"`) | base64 unscaled two's complement |
| float | the same float32, at 6 significant digits (3) | the same |
| double | the same float64 | the same float64 |
| char, varchar, text, enum, set | the text | the text |
| json (longtext) | the text as written (2) | the same |
| blob, varbinary | base64 of the bytes | base64 of the bytes |
| bit(1) | true or false | true or false |
| bit(n) | base64 of the bits, little-endian, ceil(n/8) bytes (io.debezium.data.Bits) | the same |
| date | `yyyy-MM-dd` | days since 1970-01-01 |
| datetime(0..3) | `yyyy-MM-ddTHH:mm:ss.fff` | ms since the epoch (Timestamp) |
| datetime(4..6) | `yyyy-MM-ddTHH:mm:ss.ffffff` | µs since the epoch (MicroTimestamp) |
| timestamp | ISO-8601 text of the same instant in UTC (ZonedTimestamp) | the same |
| time | `[-]HH:mm:ss.ffffff`, hours past 24 kept | µs, signed (MicroTime) |
| year | the year | the year |

(1) `bigint.unsigned.handling.mode=long` (the default) sends a bigint unsigned as a signed
64-bit long: 18446744073709551615 arrives as -1. `precise` sends a decimal.
(2) MariaDB's json is an alias of longtext with a json_valid check: the connector sends the
text as the server keeps it, not a normalised JSON document.

(3) The snapshot reads a float through the server's text protocol, which prints 6
significant digits (FLT_DIG): a stored 16777216 arrives as 16777200 in a snapshot's row, and
exactly from the binlog. Floats are compared at those 6 digits.

The server runs in UTC (workbench.realdb.mariadb), so a `timestamp` reads as its UTC time.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from decimal import Decimal

from workbench.realdb.compare import (
    EPOCH,
    WIDE,
    Column,
    NormalForms,
    float32,
    instant,
    unscaled_base64,
)
from workbench.realdb.mariadb import MariaDbServer

BINARY_TYPES = ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob")
TEXT_TYPES = ("char", "varchar", "tinytext", "text", "mediumtext", "longtext")


def columns(db: MariaDbServer, table: str, database: str) -> list[Column]:
    """The table's columns: name, COLUMN_TYPE (`bigint(20) unsigned`, `datetime(6)`) and the
    numeric scale or fractional-second digits."""
    lines = db.sql(
        "select column_name, column_type, coalesce(numeric_scale, datetime_precision, '') "
        f"from information_schema.columns where table_schema = '{database}' "
        f"and table_name = '{table}' order by ordinal_position"
    )
    out = []
    for line in lines:
        name, column_type, scale = line.split("\t")
        out.append(Column(name, column_type.lower(), int(scale) if scale else None))
    return out


def _kind(column: Column) -> str:
    """The type's name without its length or attributes: `bigint(20) unsigned` -> bigint."""
    return column.data_type.split("(")[0].split(" ")[0]


def _select_item(column: Column) -> str:
    quoted = f"`{column.name}`"
    kind = _kind(column)
    if kind in BINARY_TYPES:
        expression = f"hex({quoted})"
    elif kind == "float":
        expression = f"{quoted} + 0e0"  # the float32 exactly: the client prints 6 digits
    elif kind == "bit":
        expression = f"{quoted} + 0"
    elif kind in TEXT_TYPES:
        expression = f"cast({quoted} as char)"  # json (longtext) as its text
    else:
        expression = quoted
    return f"'{column.name}', {expression}"


def database_rows(db: MariaDbServer, table: str, database: str) -> tuple[list[Column], list[dict]]:
    """`SELECT *` on the table, each row as a dict of the database's values (numbers exact)."""
    cols = columns(db, table, database)
    select = ", ".join(_select_item(c) for c in cols)
    lines = db.sql(f"select json_object({select}) from `{database}`.`{table}`")
    return cols, [json.loads(line, parse_float=Decimal) for line in lines]


def _micros(value: str) -> int:
    """A TIME text (`-838:59:59.000000`) as signed µs."""
    sign = -1 if value.startswith("-") else 1
    hours, minutes, seconds = value.lstrip("-").split(":")
    whole, _, fraction = seconds.partition(".")
    total = (int(hours) * 60 + int(minutes)) * 60 + int(whole)
    return sign * (total * 1_000_000 + int((fraction + "000000")[:6]))


def _datetime(column: Column, text: str, schemas: bool) -> object:
    moment = dt.datetime.fromisoformat(text)
    micro = (column.scale or 0) > 3
    if schemas:
        return moment.isoformat(timespec="microseconds" if micro else "milliseconds")
    return (moment - EPOCH) // dt.timedelta(microseconds=1 if micro else 1000)


def _bits(column: Column, value: int) -> object:
    width = int(column.data_type.split("(")[1].rstrip(")"))
    if width == 1:
        return bool(value)
    return base64.b64encode(value.to_bytes((width + 7) // 8, "little")).decode()


def _float6(value: object) -> float:
    """A float32 at the 6 significant digits MariaDB's text protocol prints."""
    return float(f"{float32(value):.6g}")


def expected_value(column: Column, value: object, schemas: bool) -> object:
    """The database's value in captured_rows' normal form (module docstring)."""
    if value is None:
        return None
    kind = _kind(column)
    if kind == "bigint" and "unsigned" in column.data_type:
        number = int(value)  # type: ignore[call-overload]
        return number - 2**64 if number >= 2**63 else number
    if kind == "decimal":
        scale = column.scale or 0
        number = Decimal(str(value)).quantize(Decimal(1).scaleb(-scale), context=WIDE)
        return str(number) if schemas else unscaled_base64(int(number.scaleb(scale, context=WIDE)))
    if kind == "float":
        return _float6(value)
    if kind == "double":
        return float(value)  # type: ignore[arg-type]
    if kind in BINARY_TYPES:
        return base64.b64encode(bytes.fromhex(str(value))).decode()
    if kind == "bit":
        return _bits(column, int(value))  # type: ignore[call-overload]
    if kind == "date":
        day = dt.date.fromisoformat(str(value))
        return day.isoformat() if schemas else (day - EPOCH.date()).days
    if kind == "datetime":
        return _datetime(column, str(value), schemas)
    if kind == "timestamp":
        return dt.datetime.fromisoformat(str(value)).replace(tzinfo=dt.timezone.utc).isoformat()
    if kind == "time":
        micros = _micros(str(value))
        if not schemas:
            return micros
        sign, rest = ("-" if micros < 0 else ""), abs(micros)
        seconds, fraction = divmod(rest, 1_000_000)
        clock = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        return f"{sign}{clock}.{fraction:06d}"
    return value


def gold_value(column: Column, value: object) -> object:
    """Gold's value, read as its normal form says (floats as floats, instants)."""
    if value is None:
        return None
    kind = _kind(column)
    if kind == "float":
        return _float6(value)
    if kind == "double":
        return float(value)  # type: ignore[arg-type]
    if kind == "timestamp":
        return instant(str(value)).isoformat()
    if kind == "decimal" and isinstance(value, Decimal):
        return str(value)
    return value


def typed_value(column: Column, value: object) -> object:
    """A typed gold model's value (as Spark returns it) as captured_rows' schemas-on value."""
    if value is None:
        return None
    kind = _kind(column)
    if isinstance(value, dt.datetime):
        if kind == "timestamp":
            return value.replace(tzinfo=dt.timezone.utc).isoformat()  # session time zone UTC
        return _datetime(column, value.isoformat(), schemas=True)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    if kind == "decimal":
        return expected_value(column, value, schemas=True)
    return value


MARIADB = NormalForms(expected_value, gold_value, typed_value)
