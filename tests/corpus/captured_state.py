"""Corpus test helpers: a project per fixture group, landing records, and `captured_rows`
read in the corpus format ({table: {key_columns, rows}})."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from tests.conftest import DbtProject


def corpus_project(spark, base: Path, name: str) -> DbtProject:  # type: ignore[no-untyped-def]
    """A clean schema prefix `t_corpus_<name>` with an empty landing folder under `base`."""
    project = DbtProject(
        spark=spark,
        schema=f"t_corpus_{name}",
        landing=base / "landing",
        target_path=base / "target",
    )
    project.landing.mkdir(parents=True)
    project.drop_schemas()
    return project


def quarantine_rows(project: DbtProject) -> list[dict]:
    """reason_code, _source_file and raw_line of every quarantined message."""
    return project.sql(
        f"select reason_code, _source_file, raw_line from {project.layer('silver')}.cdc_quarantine"
    )


def kcat_line(topic: str, offset: int, key: str | None, value: str | None) -> str:
    """One `kcat -J` record holding a message's key and value texts."""
    return json.dumps(
        {
            "topic": topic,
            "partition": 0,
            "offset": offset,
            "tstype": "create",
            "ts": 0,
            "key": key,
            "payload": value,
        }
    )


# The captured_rows column holding each live key's row image as JSON text. The corpus
# convention compares raw values (the number lexemes as carried): the raw image column.
ROW_JSON_COLUMN = "_cdc_row_json_raw"


def gold_rows(project: DbtProject, table: str) -> list[dict]:
    """The current row images of one source table (`db.schema.table`, any case), as the
    messages carried them (`_cdc_row_json_raw`: the corpus compares raw values)."""
    rows = project.sql(
        f"select {ROW_JSON_COLUMN} as row_json from {project.layer('gold')}.captured_rows "
        f"where _cdc_source_id = lower('{table}')"
    )
    return [json.loads(row["row_json"]) for row in rows]


def gold_state(project: DbtProject, tables: Iterable[str]) -> dict[str, list[dict]]:
    """The current row images of each of `tables` (a snapshot to compare later)."""
    return {table: gold_rows(project, table) for table in tables}


def by_key(rows: list[dict], key_columns: list[str]) -> dict[tuple, dict]:
    """Rows keyed by their key columns' JSON text (so 1 and "1" stay different keys)."""
    return {tuple(json.dumps(row[k], sort_keys=True) for k in key_columns): row for row in rows}


def typed(value: object) -> object:
    """A JSON value with its JSON type attached, so that 1, 1.0, "1" and true all differ
    (Python's `1 == 1.0 == True`); objects compare without regard to field order."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int):
        return ("integer", value)
    if isinstance(value, float):
        return ("float", value)
    if isinstance(value, str):
        return ("string", value)
    if value is None:
        return ("null",)
    if isinstance(value, list):
        return ("array", [typed(item) for item in value])
    if isinstance(value, dict):
        return ("object", {key: typed(item) for key, item in value.items()})
    raise TypeError(f"not a JSON value: {value!r}")


def strict_by_key(rows: list[dict], key_columns: list[str]) -> dict[tuple, object]:
    """Rows keyed by their key values, each row with its JSON types (see `typed`)."""
    keyed: dict[tuple, object] = {}
    for row in rows:
        key = tuple(json.dumps(typed(row[k])) for k in key_columns)
        assert key not in keyed, f"key {key} twice"
        keyed[key] = typed(row)
    return keyed


def assert_strict_state(project: DbtProject, expected: dict[str, dict]) -> None:
    """captured_rows holds exactly the expected rows of every table, compared with types."""
    assert_strict_tables(gold_state(project, expected), expected)


def assert_strict_tables(actual: Mapping[str, list[dict]], expected: dict[str, dict]) -> None:
    """Row images per table (`gold_state`) are exactly the expected rows, with types."""
    for table, spec in expected.items():
        got = strict_by_key(actual[table], spec["key_columns"])
        wanted = strict_by_key(spec["rows"], spec["key_columns"])
        assert got.keys() == wanted.keys(), f"{table}: keys {sorted(got)} != {sorted(wanted)}"
        for key, row in wanted.items():
            assert got[key] == row, f"{table} {key}: {got[key]} != {row}"
