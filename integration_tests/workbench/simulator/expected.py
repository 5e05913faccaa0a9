"""What a correct consumer reads from a source value: the oracle's side of each encoding.

The source database (:mod:`.source_db`) holds source values (nanosecond times, zoned
timestamps, exact decimals). A consumer of the connector's messages cannot see more than
the connector sends: SQL Server DATETIME2(7) reaches Spark's microsecond timestamps cut to
the microsecond, ``time.precision.mode=connect`` keeps milliseconds,
``decimal.handling.mode=double`` rounds to the nearest double (and the consumer's JVM
decides which decimal text of that double it reads). This module predicts the
decoded value from the source value with plain Python date and Decimal arithmetic,
independently of the pipeline's SQL. Decoded types: Decimal, datetime.date, naive UTC
datetime.datetime (microseconds), times of day as 'HH:MM:SS.ffffff' text, str, int, bool.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import os
import re
import subprocess
from decimal import ROUND_HALF_UP, Context, Decimal

from .config import SimConfig
from .schema import (
    DECIMAL,
    TABLES,
    TIME,
    TIMESTAMP,
    TIMESTAMP_NS,
    TIMESTAMP_TZ,
    ColumnSpec,
    ZonedValue,
)

EPOCH = dt.datetime(1970, 1, 1)
_WIDE = Context(prec=100)

Row = dict[str, object]
State = dict[str, dict[tuple[object, ...], Row]]


def _micros_floor(ns: int) -> dt.datetime:
    return EPOCH + dt.timedelta(microseconds=ns // 1000)


def _millis_floor(ns: int) -> dt.datetime:
    return EPOCH + dt.timedelta(milliseconds=ns // 1_000_000)


def _time_of_day(ns: int) -> str:
    t = (dt.datetime.min + dt.timedelta(microseconds=ns // 1000)).time()
    return t.strftime("%H:%M:%S.%f")


# java.lang.Double.toString before JDK 19 (JDK-4511638): an integer-valued double below
# 2**63 is printed as its exact integer with this many low digits rounded away (half up),
# indexed by binary exponent - 54 (FloatingDecimal.insignificantDigitsNumber), not as the
# shortest text that reads back as the same double.
_INSIGNIFICANT_DIGITS = (
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7,
    8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14,
    15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19,
)  # fmt: skip


@functools.cache
def java_major_version() -> int:
    """Major version of the JVM Spark runs on (JAVA_HOME, else `java` on PATH); 17 when
    it cannot be asked (the project's minimum)."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else "java"
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return 17
    found = re.search(r'version "(?:1\.)?(\d+)', out.stderr + out.stdout)
    return int(found.group(1)) if found else 17


def jvm_double_text_value(value: float, java_major: int) -> Decimal:
    """The value of the text a JVM writes for a double (Spark's JSON reader re-serializes
    every JSON number it reads as a string with java.lang.Double.toString): the shortest
    round-trip text from JDK 19 on (Python's repr), the legacy digits before."""
    if java_major < 19 and value != 0 and value.is_integer():
        binary_exponent = math.frexp(value)[1] - 1
        if 0 <= binary_exponent <= 62:
            magnitude = abs(int(value))
            p2 = binary_exponent - 54
            k = _INSIGNIFICANT_DIGITS[p2] if 1 < p2 < len(_INSIGNIFICANT_DIGITS) else 0
            if k:
                kept, residue = divmod(magnitude, 10**k)
                magnitude = (kept + (residue >= 10**k // 2)) * 10**k
            return Decimal(magnitude if value > 0 else -magnitude)
    return Decimal(repr(value))


def double_as_decimal(value: float, scale: int, java_major: int | None = None) -> Decimal:
    """A decimal sent as a double (decimal.handling.mode=double), read into decimal(p, scale):
    the JVM's text of the double, rounded half up to the scale (what casting it does)."""
    major = java_major_version() if java_major is None else java_major
    text_value = jvm_double_text_value(value, major)
    return text_value.quantize(Decimal(1).scaleb(-scale), ROUND_HALF_UP, _WIDE)


def consumer_value(col: ColumnSpec, value: object, config: SimConfig) -> object:
    """The decoded value of source value ``value`` of ``col`` captured as ``config`` says."""
    if value is None:
        return None
    connect = config.time_precision_mode == "connect"
    t = col.type
    if t == DECIMAL:
        assert isinstance(value, Decimal) and col.scale is not None
        if config.decimal_handling_mode == "double":
            return double_as_decimal(float(value), col.scale)
        return value
    if t == TIMESTAMP:
        assert isinstance(value, dt.datetime)
        if connect:
            return value.replace(microsecond=value.microsecond - value.microsecond % 1000)
        return value
    if t in (TIMESTAMP_NS, TIMESTAMP_TZ):
        if isinstance(value, ZonedValue):
            ns, zoned = value.epoch_ns, config.flavour != "db2"
        else:
            assert isinstance(value, int)
            ns, zoned = value, False
        # ZonedTimestamp text keeps every digit whatever the mode; Spark keeps microseconds.
        return _millis_floor(ns) if connect and not zoned else _micros_floor(ns)
    if t == TIME:
        assert isinstance(value, int)
        if connect and config.flavour != "oracle":
            return _time_of_day(value - value % 1_000_000)
        return _time_of_day(value)
    return value


def consumer_row(table: str, row: Row, config: SimConfig) -> Row:
    """One row as a consumer decodes it; a column the table gained or lost mid-stream
    (schema evolution) is simply present or absent, with its value as the source holds it
    (the evolution columns are plain integers)."""
    columns = {c.name: c for c in TABLES[table].columns}
    return {
        name: consumer_value(columns[name], value, config) if name in columns else value
        for name, value in row.items()
    }


def consumer_state(state: State, config: SimConfig) -> State:
    """Every row of a source state as a consumer decodes it (keys are unchanged: integers)."""
    return {
        table: {key: consumer_row(table, row, config) for key, row in rows.items()}
        for table, rows in state.items()
    }


def _fraction(ns: int, digits: int) -> str:
    """The fraction of a second of ``ns`` (ns since midnight or the epoch) cut to ``digits``."""
    return f"{ns % 10**9 // 10 ** (9 - digits):0{digits}d}"


def _local_text(ns: int, digits: int) -> str:
    moment = EPOCH + dt.timedelta(seconds=ns // 10**9)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{_fraction(ns, digits)}"


def _time_text(ns: int, digits: int) -> str:
    seconds = ns // 10**9
    clock = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{clock}.{_fraction(ns, digits)}"


# Fraction digits of a temporal semantic type: milliseconds, microseconds, nanoseconds.
_DIGITS = {
    "io.debezium.time.Time": 3,
    "org.apache.kafka.connect.data.Time": 3,
    "io.debezium.time.MicroTime": 6,
    "io.debezium.time.NanoTime": 9,
    "io.debezium.time.Timestamp": 3,
    "org.apache.kafka.connect.data.Timestamp": 3,
    "io.debezium.time.MicroTimestamp": 6,
    "io.debezium.time.NanoTimestamp": 9,
}


def captured_text(col: ColumnSpec, value: object, semantic: str | None) -> str | None:
    """What `captured_rows._cdc_row_json` holds for a source value that a schema-wrapped
    message typed as ``semantic``: exact decimal text with the column's scale, ISO dates,
    times and local date-times at the type's precision (from the source value, with Python
    Decimal and date arithmetic), or None when that type is not decoded (kept as sent)."""
    if value is None or semantic is None:
        return None
    if semantic == "org.apache.kafka.connect.data.Decimal":
        assert isinstance(value, Decimal) and col.scale is not None
        return format(value.quantize(Decimal(1).scaleb(-col.scale), context=_WIDE), "f")
    if semantic in ("io.debezium.time.Date", "org.apache.kafka.connect.data.Date"):
        assert isinstance(value, dt.date)
        return value.isoformat()
    if semantic not in _DIGITS:
        return None
    digits = _DIGITS[semantic]
    if col.type == TIME:
        assert isinstance(value, int)
        return _time_text(value, digits)
    if isinstance(value, ZonedValue):  # Db2: a zone-less TIMESTAMP holding UTC
        ns = value.epoch_ns
    elif isinstance(value, dt.datetime):
        ns = (value - EPOCH) // dt.timedelta(microseconds=1) * 1000
    elif isinstance(value, dt.date):  # Oracle DATE: a timestamp at midnight
        ns = (value - EPOCH.date()).days * 86_400 * 10**9
    else:
        assert isinstance(value, int)
        ns = value
    return _local_text(ns, digits)
