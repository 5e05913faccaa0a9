"""The SQL functions' row logic: plain Python values in, never an exception out.

Any non-string input is null (the pipe of transform.py gives None; a pandas caller gives
NaN or NA). Errors become values.
"""

from __future__ import annotations

import json
import math

from python_udfs.mongodb import FoldResult, MongoDocumentError, canonical_key, fold
from python_udfs.mongodb import normalise_document as _normalise_document

KeyOrError = tuple[str | None, str | None]


def _error_text(exc: Exception) -> str:
    if isinstance(exc, MongoDocumentError):
        return str(exc)
    return f"internal_error: {type(exc).__name__}: {exc}"


def as_flag(value: object) -> bool:
    """A SQL boolean as delivered to a pandas UDF (bool, numpy bool, None, NaN, NA)."""
    if value is None or isinstance(value, str):
        return False
    if isinstance(value, float) and math.isnan(value):
        return False
    try:
        return bool(value)
    except (TypeError, ValueError):  # pandas.NA
        return False


def key_or_error(id_text: object) -> KeyOrError:
    """`cdc_mongodb_key` for one row: (key, error); a null id gives (None, None)."""
    if not isinstance(id_text, str):
        return None, None
    try:
        return canonical_key(id_text), None
    except Exception as exc:  # noqa: BLE001 - errors are values in SQL
        return None, _error_text(exc)


def normalise_or_error(doc_text: object) -> KeyOrError:
    """`cdc_mongodb_normalise` for one row: (doc, error); a null doc gives (None, None)."""
    if not isinstance(doc_text, str):
        return None, None
    try:
        return _normalise_document(doc_text), None
    except Exception as exc:  # noqa: BLE001
        return None, _error_text(exc)


_CHANGE_FIELDS = ("op", "after", "patch", "update_description", "key")


def _change(entry: object) -> dict[str, object]:
    if not isinstance(entry, dict):
        return {"op": None}
    return {name: entry.get(name) for name in _CHANGE_FIELDS}


def _dumps(results: list[FoldResult]) -> str:
    return json.dumps(results, ensure_ascii=False, separators=(",", ":"))


def fold_json(base_doc: object, base_partial: object, changes_json: object) -> str | None:
    """One key's changes folded (`mongodb_fold`): a JSON array of `{doc, partial, error}`.

    A null `changes_json` gives null. If it cannot be read as a JSON array the result is
    one element carrying the base and `error` = `malformed_changes: ...`.
    """
    if not isinstance(changes_json, str):
        return None
    base = base_doc if isinstance(base_doc, str) else None
    partial = as_flag(base_partial) and base is not None
    try:
        entries = json.loads(changes_json)
        if not isinstance(entries, list):
            raise ValueError(f"expected a JSON array, got {type(entries).__name__}")
        return _dumps(fold(base, partial, [_change(entry) for entry in entries]))
    except Exception as exc:  # noqa: BLE001
        error = f"malformed_changes: {exc}"
        return _dumps([{"doc": base, "partial": partial, "error": error}])
