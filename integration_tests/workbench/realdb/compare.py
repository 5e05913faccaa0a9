"""Gold's current rows compared with `SELECT *` on the source database, value by value.

Each PostgreSQL type has one documented normal form in `captured_rows._cdc_row_json`
(docs/contracts.md, "captured_rows decodes by the message's schema"), built here from the
database's own value (never from what the capture wrote):

| PostgreSQL type | schemas on (decoded by the message's schema) | schemas off (as carried) |
| --- | --- | --- |
| smallint, integer, bigint | the number | the number |
| numeric(p,s) | decimal text at scale s (`"123.40"`) | base64 unscaled two's complement |
| numeric | decimal text without trailing zeros (1) | `{"scale", "value"}` (1) |
| real | the same float32 | the same float32 |
| double precision | the same float64 | the same float64 |
| boolean, text, varchar, uuid, enum | the value | the value |
| bytea | base64 of the bytes | base64 of the bytes |
| date | `yyyy-MM-dd` | days since 1970-01-01 |
| time | `HH:mm:ss.ffffff` | µs since midnight (MicroTime) |
| timestamp | `yyyy-MM-ddTHH:mm:ss.ffffff` | µs since the epoch (MicroTimestamp) |
| timestamptz | ISO-8601 text of the same instant (ZonedTimestamp, in UTC) | the same |
| interval (days and time, no months) | µs (MicroDuration), within 1 µs (TOLERANCE) | the same |
| json, jsonb | JSON text of an equal JSON value (io.debezium.data.Json) | the same |

(1) Debezium sends an unconstrained `numeric` (VariableScaleDecimal) at the smallest scale that
holds its value: PostgreSQL's `2.50` arrives as `2.5` (scale 1). The value is the same; the
display scale PostgreSQL keeps is not carried.

A typed gold model scaffolded from bronze (`python -m cdc_tools.scaffold --from-bronze`, from a
source with schemas) holds each value in the contract type the scaffolder chose, and
`typed_value` brings it to the schemas-on form above: numeric(p,s) decimal(p,s); unconstrained
numeric a string of its exact text; real and double precision double; bytea a string of the
base64 text; date date; time a string; timestamp a timestamp (its wall clock), timestamptz a
timestamp (the instant, read in the session's UTC); interval bigint (µs); json, jsonb, uuid and
enum strings.

Connector properties change some forms (`Modes`, one source's `options`):
`decimal.handling.mode=string` sends every numeric as its plain decimal text at the
database's scale (BigDecimal.toPlainString: `"12.30"`, `"0.000…1"`), `double` as the nearest
float64; `binary.handling.mode=hex` sends bytea as lowercase hex, `base64-url-safe` as URL-safe
base64; `time.precision.mode=connect` sends time and timestamp (and their arrays' elements)
in Kafka Connect's millisecond types: the microseconds below the millisecond are cut, and
captured_rows writes them at that precision (`HH:mm:ss.fff`; schemas off: ms since midnight,
ms since the epoch). Typed gold holds the same forms in the types the
scaffolder chose from those schemas (a string, a double).

A column the table gained after a row's last change is absent from that row's image and reads
as null (the added column is null in the database too); a column the table dropped after a
row's last change is still in its image and is not compared.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Context, Decimal

from workbench.realdb.postgres import PostgresServer

EPOCH = dt.datetime(1970, 1, 1)
WIDE = Context(prec=200)  # numeric has up to 131072 digits before the point; these tests use 40


@dataclass(frozen=True)
class Modes:
    """The PostgreSQL connector's properties that change how a value is encoded, at their
    defaults unless a source's `options` set them (docs/real-databases.md)."""

    decimal: str = "precise"  # decimal.handling.mode: precise, string, double
    binary: str = "bytes"  # binary.handling.mode: bytes, base64, base64-url-safe, hex
    time: str = "adaptive"  # time.precision.mode: adaptive, adaptive_time_microseconds, connect

    @classmethod
    def of(cls, options: Mapping[str, str]) -> Modes:
        """The modes a source's connector options set."""
        return cls(
            options.get("decimal.handling.mode", cls.decimal),
            options.get("binary.handling.mode", cls.binary),
            options.get("time.precision.mode", cls.time),
        )


DEFAULT_MODES = Modes()


@dataclass(frozen=True)
class Column:
    name: str
    data_type: str  # information_schema.columns.data_type
    scale: int | None  # numeric_scale (None: numeric without precision)
    element: Column | None = None  # an array's element type (data_type ARRAY)


def element_column(name: str, formatted: str) -> Column:
    """The element of an array column from its format_type text (`numeric(8,2)[]`)."""
    base = formatted.removesuffix("[]")
    scale = None
    if base.startswith("numeric(") and "," in base:
        scale = int(base.split(",")[1].rstrip(")"))
        base = "numeric"
    return Column(name, base, scale)


def columns(pg: PostgresServer, table: str, database: str | None = None) -> list[Column]:
    lines = pg.sql(
        "select column_name || '|' || data_type || '|' || coalesce(numeric_scale::text, '') "
        "|| '|' || (select format_type(a.atttypid, a.atttypmod) from pg_attribute as a "
        "where a.attrelid = format('public.%I', table_name)::regclass "
        "and a.attname = column_name) "
        f"from information_schema.columns where table_schema = 'public' and table_name = '{table}' "
        "order by ordinal_position",
        database=database,
    )
    out = []
    for line in lines:
        name, data_type, scale, formatted = line.split("|")
        element = element_column(name, formatted) if data_type == "ARRAY" else None
        out.append(Column(name, data_type, int(scale) if scale else None, element))
    return out


def _select_item(column: Column) -> str:
    quoted = f'"{column.name}"'
    if column.data_type == "bytea":
        return f"encode({quoted}, 'hex') as {quoted}"
    if column.data_type == "interval":
        return f"(extract(epoch from {quoted}) * 1000000)::bigint as {quoted}"
    if column.data_type.startswith("time") and "zone" not in column.data_type:
        return f"{quoted}::text as {quoted}"
    return quoted


def database_rows(
    pg: PostgresServer, table: str, database: str | None = None
) -> tuple[list[Column], list[dict]]:
    """`SELECT *` on the table, each row as a dict of the database's values (numbers exact)."""
    cols = columns(pg, table, database)
    select = ", ".join(_select_item(c) for c in cols)
    lines = pg.sql(
        f'select row_to_json(t)::text from (select {select} from public."{table}") as t',
        database=database,
    )
    return cols, [json.loads(line, parse_float=Decimal) for line in lines]


def float32(value: object) -> float:
    return float(struct.unpack("<f", struct.pack("<f", float(value)))[0])  # type: ignore[arg-type]


def unscaled_base64(unscaled: int) -> str:
    length = (unscaled if unscaled >= 0 else ~unscaled).bit_length() // 8 + 1
    return base64.b64encode(unscaled.to_bytes(length, "big", signed=True)).decode()


def instant(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(dt.timezone.utc)


def _to_millisecond(micros: int) -> int:
    """A count of µs cut to the millisecond (Kafka Connect's Time and Timestamp)."""
    return micros // 1000 * 1000


def expected_value(
    column: Column, value: object, schemas: bool, modes: Modes = DEFAULT_MODES
) -> object:
    """The database's value in captured_rows' normal form (module docstring)."""
    if value is None:
        return None
    kind = column.data_type
    if kind == "ARRAY" and column.element is not None:
        # each element in the normal form of its scalar twin
        return [expected_value(column.element, item, schemas, modes) for item in value]  # type: ignore[attr-defined]
    if kind == "numeric" and modes.decimal == "string":
        return format(Decimal(str(value)), "f")  # BigDecimal.toPlainString, the database's scale
    if kind == "numeric" and modes.decimal == "double":
        return float(Decimal(str(value)))
    if kind == "numeric":
        number = Decimal(str(value))
        if column.scale is None:
            # Debezium sends an unconstrained numeric at its smallest scale: 2.50 as 2.5
            number = number.normalize(WIDE)
            if int(number.as_tuple().exponent) > 0:
                number = number.quantize(Decimal(1), context=WIDE)
        scale = column.scale if column.scale is not None else -int(number.as_tuple().exponent)
        if schemas:
            return format(number.quantize(Decimal(1).scaleb(-scale), context=WIDE), "f")
        unscaled = unscaled_base64(int(number.scaleb(scale, context=WIDE)))
        return unscaled if column.scale is not None else {"scale": scale, "value": unscaled}
    if kind == "real":
        return float32(value)
    if kind == "double precision":
        return float(value)  # type: ignore[arg-type]
    if kind == "bytea" and modes.binary == "hex":
        return bytes.fromhex(str(value)).hex()
    if kind == "bytea" and modes.binary == "base64-url-safe":
        return base64.urlsafe_b64encode(bytes.fromhex(str(value))).decode()
    if kind == "bytea":
        return base64.b64encode(bytes.fromhex(str(value))).decode()
    if kind == "date":
        day = dt.date.fromisoformat(str(value))
        return day.isoformat() if schemas else (day - EPOCH.date()).days
    connect = modes.time == "connect"
    if kind == "time without time zone":
        moment = dt.time.fromisoformat(str(value))
        micros = ((moment.hour * 60 + moment.minute) * 60 + moment.second) * 1_000_000
        micros += moment.microsecond
        if connect:
            micros = _to_millisecond(micros)
        if schemas:  # at the type's precision: ms (connect Time) or µs
            seconds, fraction = divmod(micros, 1_000_000)
            text = (
                f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{fraction:06d}"
            )
            return text[:-3] if connect else text
        return micros // 1000 if connect else micros
    if kind == "timestamp without time zone":
        micros = (dt.datetime.fromisoformat(str(value)) - EPOCH) // dt.timedelta(microseconds=1)
        if connect:
            micros = _to_millisecond(micros)
        if schemas:
            moment = EPOCH + dt.timedelta(microseconds=micros)
            return moment.isoformat(timespec="milliseconds" if connect else "microseconds")
        return micros // 1000 if connect else micros
    if kind == "timestamp with time zone":
        return instant(str(value))
    if kind in ("json", "jsonb"):
        return json.loads(json.dumps(value, default=str), parse_float=Decimal)
    return value


def typed_value(column: Column, value: object, modes: Modes = DEFAULT_MODES) -> object:
    """A typed gold model's value (as Spark returns it) in the normal form of the schemas-on
    column (module docstring, "typed gold")."""
    if value is None:
        return None
    connect = modes.time == "connect"
    if isinstance(value, dt.datetime):
        if column.data_type == "timestamp with time zone":
            return value.replace(tzinfo=dt.timezone.utc).isoformat()  # session time zone UTC
        return value.isoformat(timespec="milliseconds" if connect else "microseconds")
    if (
        connect
        and column.data_type in ("time without time zone", "ARRAY")
        and isinstance(value, str)
    ):
        # typed text of a time (and an array's) has µs digits; connect's types carry ms
        return re.sub(r"(\d\d:\d\d:\d\d\.\d{3})000\b", r"\1", value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    if column.data_type in ("real", "double precision") and not isinstance(value, float):
        return f"not a float: {value!r}"  # a float column typed otherwise (issue 78)
    if column.data_type == "numeric":
        return expected_value(column, value, True, modes)
    return value


def gold_value(column: Column, value: object, modes: Modes = DEFAULT_MODES) -> object:
    """Gold's value, read as its normal form says (floats as floats, instants, JSON text)."""
    if value is None:
        return None
    kind = column.data_type
    if kind == "ARRAY":  # JSON text (typed gold) or the image's array, elements as sent
        items = json.loads(value, parse_float=Decimal) if isinstance(value, str) else value
        if column.element is None or not isinstance(items, list):
            return items
        return [gold_value(column.element, item, modes) for item in items]
    if kind == "numeric" and modes.decimal == "double":
        return float(value)  # type: ignore[arg-type]
    if isinstance(value, str) and value.startswith("not a float: "):
        return value
    if kind == "real":
        return float32(value)
    if kind == "double precision":
        return float(value)  # type: ignore[arg-type]
    if kind == "timestamp with time zone":
        return instant(str(value))
    if kind in ("json", "jsonb"):
        return json.loads(str(value), parse_float=Decimal)
    if kind == "numeric" and isinstance(value, Decimal):
        return str(value)
    return value


# Columns compared within a tolerance: interval in Debezium's default numeric mode
# (MicroDuration) is computed through a double (PGInterval's seconds), which can lose the
# last microsecond: 48.236284 s arrives as 48236283 µs. interval.handling.mode=string is exact.
TOLERANCE: dict[str, int] = {"interval": 1}


@dataclass(frozen=True)
class NormalForms:
    """One database's normal forms: the database's value (column, value, schemas on) and
    gold's value (column, value) in the form both are compared in, a typed gold model's
    value (as Spark returns it) as captured_rows' schemas-on value, and the columns (by
    data type) compared within a tolerance."""

    expected: Callable[[Column, object, bool], object]
    gold: Callable[[Column, object], object]
    typed: Callable[[Column, object], object]
    tolerance: Mapping[str, int] = field(default_factory=dict)


POSTGRES = NormalForms(expected_value, gold_value, typed_value, TOLERANCE)


def postgres_forms(modes: Modes) -> NormalForms:
    """PostgreSQL's normal forms under a source's connector modes."""
    if modes == DEFAULT_MODES:
        return POSTGRES
    return NormalForms(
        lambda column, value, schemas: expected_value(column, value, schemas, modes),
        lambda column, value: gold_value(column, value, modes),
        lambda column, value: typed_value(column, value, modes),
        TOLERANCE,
    )


def _value_text(
    column: Column, row: Mapping[str, object], schemas: bool, gold: bool, forms: NormalForms
) -> str:
    value = row.get(column.name)
    normal = forms.gold(column, value) if gold else forms.expected(column, value, schemas)
    return json.dumps(normal, sort_keys=True, default=str)


def _canonical(
    row: Mapping[str, object],
    cols: Sequence[Column],
    schemas: bool,
    gold: bool,
    forms: NormalForms,
) -> tuple[tuple[tuple[str, str], ...], tuple[object, ...]]:
    """The row's exact part (every column but those with a tolerance) and the rest."""
    exact = tuple(
        (c.name, _value_text(c, row, schemas, gold, forms))
        for c in cols
        if c.data_type not in forms.tolerance
    )
    near = tuple(row.get(c.name) for c in cols if c.data_type in forms.tolerance)
    return exact, near


def _near(
    left: tuple[object, ...], right: tuple[object, ...], cols: Sequence[Column], forms: NormalForms
) -> bool:
    tolerances = [forms.tolerance[c.data_type] for c in cols if c.data_type in forms.tolerance]
    return all(
        (a is None and b is None) or (a is not None and b is not None and abs(int(a) - int(b)) <= t)  # type: ignore[call-overload]
        for a, b, t in zip(left, right, tolerances, strict=True)
    )


def differences(
    cols: Sequence[Column],
    database: list[dict],
    gold: list[dict],
    schemas: bool,
    forms: NormalForms = POSTGRES,
) -> list[str]:
    """What differs between the database's rows and gold's, as multisets of normal forms
    (a keyless table may hold a row twice); columns of the forms' tolerance within it."""
    want: dict[tuple, list[tuple[object, ...]]] = {}
    got: dict[tuple, list[tuple[object, ...]]] = {}
    for rows, into, is_gold in ((database, want, False), (gold, got, True)):
        for row in rows:
            exact, near = _canonical(row, cols, schemas, gold=is_gold, forms=forms)
            into.setdefault(exact, []).append(near)
    out: list[str] = []
    for exact in want.keys() | got.keys():
        wanted, found = sorted(want.get(exact, []), key=str), sorted(got.get(exact, []), key=str)
        unmatched = list(found)
        for near in wanted:
            match = next(
                (i for i, other in enumerate(unmatched) if _near(near, other, cols, forms)), None
            )
            if match is None:
                out.append(f"missing from gold: {dict(exact)} {near}")
            else:
                unmatched.pop(match)
        out += [f"not in the database: {dict(exact)} {near}" for near in unmatched]
    return out
