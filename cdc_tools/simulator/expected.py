"""What a correct consumer reads from a source value: the oracle's side of each encoding.

The source database (:mod:`.source_db`) holds source values (nanosecond times, zoned
timestamps, exact decimals). A consumer of the connector's messages cannot see more than
the connector sends: SQL Server DATETIME2(7) reaches Spark's microsecond timestamps cut to
the microsecond, ``time.precision.mode=connect`` keeps milliseconds,
``decimal.handling.mode=double`` rounds to the nearest double. This module predicts the
decoded value from the source value with plain Python date and Decimal arithmetic,
independently of the pipeline's SQL. Decoded types: Decimal, datetime.date, naive UTC
datetime.datetime (microseconds), times of day as 'HH:MM:SS.ffffff' text, str, int, bool.
"""

from __future__ import annotations

import datetime as dt
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


def _double_as_decimal(value: Decimal, scale: int) -> Decimal:
    """A decimal sent as a double, read back into decimal(p, scale): the shortest text of
    the double, rounded half up to the scale (what casting the JSON number does)."""
    text = repr(float(value))
    return Decimal(text).quantize(Decimal(1).scaleb(-scale), ROUND_HALF_UP, _WIDE)


def consumer_value(col: ColumnSpec, value: object, config: SimConfig) -> object:
    """The decoded value of source value ``value`` of ``col`` captured as ``config`` says."""
    if value is None:
        return None
    connect = config.time_precision_mode == "connect"
    t = col.type
    if t == DECIMAL:
        assert isinstance(value, Decimal) and col.scale is not None
        if config.decimal_handling_mode == "double":
            return _double_as_decimal(value, col.scale)
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
    spec = TABLES[table]
    return {c.name: consumer_value(c, row[c.name], config) for c in spec.columns}


def consumer_state(state: State, config: SimConfig) -> State:
    """Every row of a source state as a consumer decodes it (keys are unchanged: integers)."""
    return {
        table: {key: consumer_row(table, row, config) for key, row in rows.items()}
        for table, rows in state.items()
    }
