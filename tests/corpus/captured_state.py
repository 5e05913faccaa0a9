"""Reading `captured_rows` in the corpus format: {table: {key_columns, rows}}."""

from __future__ import annotations

import json

from tests.conftest import DbtProject


def gold_rows(project: DbtProject, table: str) -> list[dict]:
    """The current row images of one source table (`db.schema.table`, any case)."""
    rows = project.sql(
        f"select _cdc_row_json from {project.layer('gold')}.captured_rows "
        f"where _cdc_source_id = lower('{table}')"
    )
    return [json.loads(row["_cdc_row_json"]) for row in rows]


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
