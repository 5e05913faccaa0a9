"""The package's Python functions, run by Spark SQL's `transform` clause (no UDF registration).

`select transform(...) using 'python3 <this file> <function> <keys>'` starts this script per
task and streams the rows through it: one line per row, its fields separated by tabs, each
field the base64 of its UTF-8 text, or `\\N` for null (macro `_cdc_python_transform`). The first
`<keys>` fields are echoed as they came, so the caller joins the answer back to its row; the
function's result is appended as one more field. Only the standard library and the pure
modules beside this file are imported: the executors need Python 3.10+, nothing installed.
"""

from __future__ import annotations

import base64
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from python_udfs.mongodb_sql import fold_json  # noqa: E402

NULL = "\\N"


def _text(field: str) -> str | None:
    return None if field == NULL else base64.b64decode(field).decode("utf-8")


def _field(text: str | None) -> str:
    return NULL if text is None else base64.b64encode(text.encode("utf-8")).decode("ascii")


def _mongodb_fold(base_doc: str | None, partial: str | None, changes: str | None) -> str | None:
    return fold_json(base_doc, partial == "true", changes)


FUNCTIONS: dict[str, Callable[..., str | None]] = {"mongodb_fold": _mongodb_fold}


def main(argv: list[str]) -> int:
    function = FUNCTIONS[argv[1]]
    keys = int(argv[2])
    for line in sys.stdin:
        fields = line.rstrip("\n").split("\t")
        result = function(*(_text(field) for field in fields[keys:]))
        sys.stdout.write("\t".join([*fields[:keys], _field(result)]) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
