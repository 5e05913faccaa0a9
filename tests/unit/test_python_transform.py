"""python_udfs/transform.py, as Spark's `transform` clause runs it (macro _cdc_python_transform):
a process reading rows of base64 fields, tab-separated, `\\N` for null; the key fields echoed,
the function's result appended. The fold's logic itself: test_mongodb_udf.py."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

from python_udfs.mongodb_sql import fold_json

SCRIPT = Path(__file__).resolve().parents[2] / "python_udfs" / "transform.py"
NULL = "\\N"


def _field(text: str | None) -> str:
    return NULL if text is None else base64.b64encode(text.encode()).decode()


def _text(field: str) -> str | None:
    return None if field == NULL else base64.b64decode(field).decode()


def _pipe(rows: list[list[str | None]], keys: int) -> list[list[str | None]]:
    lines = "".join("\t".join(_field(value) for value in row) + "\n" for row in rows)
    # run as Spark runs it: a bare interpreter, from another folder, nothing on its path
    done = subprocess.run(
        [sys.executable, "-I", str(SCRIPT), "mongodb_fold", str(keys)],
        input=lines,
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    )
    return [[_text(field) for field in line.split("\t")] for line in done.stdout.splitlines()]


def test_rows_come_back_with_their_keys_and_the_fold() -> None:
    after = '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"},"name":"tab\\there","é":"\\n"}'
    changes = json.dumps(
        [
            {"op": "c", "after": after},
            {"op": "u", "patch": '{"$v": 1, "$set": {"b.c": {"$numberLong": "5"}}}'},
        ]
    )
    partial = json.dumps(
        [{"op": "u", "key": '{"_id":7}', "update_description": {"updatedFields": '{"k":1}'}}]
    )
    rows: list[list[str | None]] = [
        # keys with a tab, a newline and non-ASCII text cross the pipe unchanged
        ["source\t1", '{"_id":\n"a"}', "debezium_mongodb", None, "false", changes],
        ["source é", '{"_id":7}', "debezium_mongodb", '{"_id":7}', "true", partial],
        ["s", "k", "debezium_mongodb", None, None, None],
        ["s", "bad", "debezium_mongodb", None, "false", "{not json"],
    ]
    got = _pipe(rows, keys=3)
    assert [row[:3] for row in got] == [row[:3] for row in rows]
    assert [row[3] for row in got] == [
        fold_json(None, False, changes),
        fold_json('{"_id":7}', True, partial),
        None,
        fold_json(None, False, "{not json"),
    ]
    first = json.loads(got[0][3] or "")
    assert json.loads(first[0]["doc"])["name"] == "tab\there"
    assert json.loads(first[1]["doc"])["b"] == {"c": {"$numberLong": "5"}}
    second = json.loads(got[1][3] or "")
    assert second[0]["partial"] is True
    assert json.loads(got[3][3] or "")[0]["error"].startswith("malformed_changes:")


def test_no_rows_no_output() -> None:
    assert _pipe([], keys=3) == []
