"""captured_rows decodes the values a message's own schema types (../shared/corpus).

The corpus README lists, per fixture, the decoded equivalents of its special types
(checked by their publishers against the INSERT statements of their tests). Schema-wrapped
fixtures must show them in `_cdc_row_json` as text at their type's precision, keep every
other value exactly as sent, and keep the image as sent in `_cdc_row_json_raw`; a
schemaless fixture keeps the wire form (nothing in the message says how to decode it).
No build of its own: it reads the corpus modules' shared warehouses (tests/corpus/shared.py),
Transferia's captures in `corpus_a` right after the step that lands messages 0..2 (one live
row each: the checkpoint after msg 2), the paimon and Oracle files in `corpus_b` (declared
keys `all_types_table: [pt, _id]`, `all_types1: [F1]`, from their expected states).
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.corpus.captured_state import typed
from tests.corpus.shared import KEY_VALUE_STEPS, WRAPPED, Warehouse

pytestmark = pytest.mark.spark

EPOCH = dt.datetime(1970, 1, 1)
TRANSFERIA = {
    "transferia__pg2mock-debezium-replication": "pguser.public.basic_types",
    "transferia__mysql2mock-debezium-replication": "source.customers3",
}
PAIMON = "paimon__debezium-alltype-mysql.txt"
SCHEMALESS = "seatunnel__debezium-oracle.txt"


def _millis(value: int) -> str:
    return (EPOCH + dt.timedelta(milliseconds=value)).isoformat(timespec="milliseconds")


def _micros(value: int) -> str:
    return (EPOCH + dt.timedelta(microseconds=value)).isoformat(timespec="microseconds")


# The corpus README's decoded equivalents ("Special types", fixtures 5, 6, 7), written at
# the precision of each column's type (ms: 3 fraction digits, µs: 6).
DECODED = {
    "pguser.public.basic_types": {
        "numeric_5": "12345",
        "numeric_5_2": "123.67",
        "decimal_5": "12345",
        "decimal_5_2": "123.67",
        "numeric_": "1267650600228229401496703205376",
        "decimal_": "123456",
        "date_": "1999-01-08",
        "time_": "04:05:06.000000",
        "time1": "04:05:06.100",
        "timestamp6": "2004-10-19T10:23:54.987654",
        "timestamp1": _millis(1098181434900),
    },
    "source.customers3": {
        "NUMERIC_": "1234567890",
        "NUMERIC_5": "12345",
        "NUMERIC_5_2": "123.45",
        "DECIMAL_": "2345678901",
        "DECIMAL_5": "23451",
        "DECIMAL_5_2": "231.45",
        "date_": "1000-01-01",
        "datetime_": _millis(1577891410000),
        "datetime3": _millis(1577891410123),
        "datetime6": _micros(1577891410123456),
        "time6": "04:05:06.123456",
    },
    "paimon_sync_table.all_types_table": {
        "_date": "2023-03-23",
        "_datetime": "2023-03-23T14:30:05.000",
        "_datetime6": _micros(1679581805123456),
        "_time": "10:13:23.000000",
    },
}
# Typed by their schema, but already text or plain numbers: kept as sent.
KEPT = {
    "pguser.public.basic_types": ["iv", "timestamptz_", "timetz_", "d", "pt"],
    "source.customers3": ["year_", "timestamp6", "float_"],
    # Decimal fields written as JSON numbers (JsonConverter decimal.format=NUMERIC).
    "paimon_sync_table.all_types_table": ["pt", "_numeric", "_timestamp", "_year"],
}


# The step of `corpus_a` after which Transferia's captures hold messages 0..2.
UP_TO_MSG_2 = [last for _, last in KEY_VALUE_STEPS].index(2)


def test_schema_wrapped_values_are_decoded_and_the_raw_image_kept(
    corpus_a: Warehouse, corpus_b: Warehouse
) -> None:
    def captured(table: str) -> list[dict[str, object]]:
        if table in TRANSFERIA.values():  # up to the checkpoint after msg 2
            return corpus_a.captured(table, UP_TO_MSG_2)
        return corpus_b.captured(table)

    assert set(TRANSFERIA.values()) < DECODED.keys()
    assert {PAIMON, SCHEMALESS} <= {*WRAPPED}
    for table, decoded in DECODED.items():
        [row] = captured(table)
        image, raw = json.loads(str(row["row_json"])), json.loads(str(row["row_json_raw"]))
        assert row["is_decoded"] is True, table
        assert list(image) == list(raw), f"{table}: columns or their order changed"
        assert {column: image[column] for column in decoded} == decoded, table
        for column in KEPT[table]:
            assert typed(image[column]) == typed(raw[column]), f"{table}.{column}"
        for column in decoded:  # the raw image is the wire form
            assert raw[column] != decoded[column], f"{table}.{column}"
        # every value the schema does not say how to decode is kept exactly, types included
        undecoded = set(raw) - set(decoded)
        changed = {c for c in undecoded if typed(image[c]) != typed(raw[c])}
        assert all(isinstance(image[c], str) for c in changed), f"{table}: {changed}"
        assert not changed & set(KEPT[table])
    # the licence header of the paimon file is quarantined before the change log: not here

    # Payload only: nothing in the message types F27 (an Oracle DATE in ms): wire form.
    [row] = captured("ORCL.QA_SOURCE.ALL_TYPES1")
    assert row["is_decoded"] is False
    assert row["row_json"] == row["row_json_raw"]
    assert json.loads(str(row["row_json"]))["F27"] == 1734449012000
