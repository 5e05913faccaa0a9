"""captured_rows decodes the values a message's own schema types (../shared/corpus).

The corpus README lists, per fixture, the decoded equivalents of its special types
(checked by their publishers against the INSERT statements of their tests). Schema-wrapped
fixtures must show them in `_cdc_row_json` as text at their type's precision, keep every
other value exactly as sent, and keep the image as sent in `_cdc_row_json_raw`; a
schemaless fixture keeps the wire form (nothing in the message says how to decode it).
One `dbt run` of captured_rows and its parents covers every case.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest

from tests.corpus.captured_state import corpus_project, kcat_line, typed

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


def _captured(project, table: str) -> list[dict]:  # type: ignore[no-untyped-def]
    return project.sql(
        f"select _cdc_row_json, _cdc_row_json_raw, _cdc_is_decoded "
        f"from {project.layer('gold')}.captured_rows where _cdc_source_id = lower('{table}')"
    )


def test_schema_wrapped_values_are_decoded_and_the_raw_image_kept(  # type: ignore[no-untyped-def]
    spark, corpus_dir, tmp_path
) -> None:
    project = corpus_project(spark, tmp_path, "decoded")
    for fixture in TRANSFERIA:  # up to the checkpoint after msg 2: one live row each
        folder = corpus_dir / fixture
        lines = [
            kcat_line(
                fixture,
                index,
                (folder / f"debezium_msg_{index}_key.txt").read_text().strip(),
                (folder / f"debezium_msg_{index}_val.txt").read_text().strip(),
            )
            for index in range(3)
        ]
        (project.landing / f"{fixture}.jsonl").write_text("\n".join(lines) + "\n")
    for fixture in (PAIMON, SCHEMALESS):
        shutil.copy(corpus_dir / fixture, project.landing / fixture)
    keys = {"all_types_table": ["pt", "_id"], "all_types1": ["F1"]}
    project.run("run", "--select", "+captured_rows", vars={"cdc_table_keys": keys})

    for table, decoded in DECODED.items():
        [row] = _captured(project, table)
        image, raw = json.loads(row["_cdc_row_json"]), json.loads(row["_cdc_row_json_raw"])
        assert row["_cdc_is_decoded"] is True, table
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
    [row] = _captured(project, "ORCL.QA_SOURCE.ALL_TYPES1")
    assert row["_cdc_is_decoded"] is False
    assert row["_cdc_row_json"] == row["_cdc_row_json_raw"]
    assert json.loads(row["_cdc_row_json"])["F27"] == 1734449012000
    project.drop_schemas()
