"""Folding Debezium MongoDB change events into current documents (pure Python, no Spark).

Spark SQL cannot apply a MongoDB update to a JSON document (no recursion over JSON, and
VARIANT has no update functions in Spark 4.0), so this module does it; Spark's `transform` clause
runs it (`transform.py`). Public API:

* `normalise_document(text)`: extended JSON (canonical, relaxed, legacy) to the Debezium
  normal form, compact text;
* `canonical_key(id_text)`, `key_from_document(doc_text)`, `key_from_filter(filter_text)`:
  the `{"_id": ...}` key text that equal MongoDB ids share;
* `fold(base, base_partial, changes)`: apply a key's changes in order, one result each.

Every failure raises (or, in `fold`, reports) a `MongoDocumentError` whose text starts with
a reason code: `malformed_document`, `malformed_extended_json`, `missing_id`, `missing_after`,
`missing_patch`, `malformed_patch`, `malformed_base`, `malformed_key`, `unknown_op`,
`unknown_patch_operator`, `patch_path_through_scalar`, `patch_path_through_array`,
`patch_path_invalid`, `internal_error`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypedDict

from python_udfs.mongodb_extjson import (
    Document,
    Double,
    MongoDocumentError,
    Value,
    parse_json,
    render,
    render_key,
    to_document,
    to_value,
)
from python_udfs.mongodb_patch import (
    apply_diff,
    apply_operators,
    apply_update_description,
    copy_value,
)

__all__ = [
    "FoldResult",
    "MongoDocumentError",
    "canonical_key",
    "fold",
    "key_from_document",
    "key_from_filter",
    "normalise_document",
]


class FoldResult(TypedDict):
    doc: str | None
    partial: bool
    error: str | None


def _parse_document(text: object, reason: str = "malformed_document") -> Document:
    raw = parse_json(text)
    if not isinstance(raw, dict):
        raise MongoDocumentError(reason, f"expected a JSON object, got {type(raw).__name__}")
    if any(key.startswith("$") for key in raw):
        value = to_value(raw)  # raises for an unknown wrapper; a DBRef-like top level is fine
        if not isinstance(value, dict):
            raise MongoDocumentError(reason, "a document cannot be an extended JSON value")
        return value
    return to_document(raw)


def normalise_document(text: str) -> str:
    """A MongoDB document in extended JSON to its normal-form compact text."""
    return render(_parse_document(text))


# ---------------------------------------------------------------- keys


def _key_text(id_value: Value) -> str:
    return render_key({"_id": id_value})


def canonical_key(id_text: str) -> str:
    """`{"_id": <canonical>}` of the JSON text of an `_id` value."""
    return _key_text(to_value(parse_json(id_text)))


def _id_of(text: str, what: str) -> str:
    document = _parse_document(text)
    if "_id" not in document:
        raise MongoDocumentError("missing_id", f"the {what} has no _id")
    return _key_text(document["_id"])


def key_from_document(doc_text: str) -> str:
    """The canonical key of a document's `_id`."""
    return _id_of(doc_text, "document")


def key_from_filter(filter_text: str) -> str:
    """The canonical key of an update/delete `filter` (`_id` plus any shard keys)."""
    return _id_of(filter_text, "filter")


def _id_from_key(key: object) -> Value:
    """The `_id` value carried by a canonical key text (numbers come back as plain numbers)."""
    try:
        raw = parse_json(key)
    except MongoDocumentError as exc:
        raise MongoDocumentError("malformed_key", str(exc)) from None
    if not isinstance(raw, dict) or "_id" not in raw:
        raise MongoDocumentError("malformed_key", f'expected {{"_id": ...}}, got {key!r}')
    return to_value(raw["_id"], "_id")


# ---------------------------------------------------------------- fold


@dataclass
class _State:
    doc: Document | None
    text: str | None
    partial: bool
    broken: str | None = None  # why the base text could not be read


def _initial_state(base: str | None, base_partial: bool) -> _State:
    if not _present(base):
        return _State(None, None, False)
    try:
        document = _parse_document(base)
    except MongoDocumentError as exc:
        return _State(None, base, bool(base_partial), broken=str(exc))
    return _State(document, base, bool(base_partial))


def _present(value: object) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _full_document(text: object, op: object) -> Document:
    if not _present(text):
        raise MongoDocumentError("missing_after", f"op {op!r} without after")
    return _parse_document(text, reason="missing_after")


def _working_copy(state: _State, key: object) -> tuple[Document, bool]:
    """The document an update applies to: a copy of the state, or `{_id}` (partial)."""
    if state.broken is not None:
        raise MongoDocumentError("malformed_base", state.broken)
    if state.doc is not None:
        return copy_value(state.doc), state.partial  # type: ignore[return-value]
    if not _present(key):
        return {}, True
    return {"_id": _id_from_key(key)}, True


def _is_version_2(version: object) -> bool:
    if isinstance(version, Double):
        return version.value == 2.0
    return version == 2 and not isinstance(version, bool)


def _apply_patch(state: _State, patch_text: object, key: object) -> tuple[Document | None, bool]:
    raw = parse_json(patch_text)
    if not isinstance(raw, dict):
        raise MongoDocumentError("malformed_patch", f"patch is a {type(raw).__name__}")
    had_version = "$v" in raw
    version = raw.pop("$v", None)
    if "diff" in raw and _is_version_2(version):
        if set(raw) != {"diff"}:
            raise MongoDocumentError("malformed_patch", f"v2 diff with extra keys {sorted(raw)}")
        document, partial = _working_copy(state, key)
        apply_diff(document, raw["diff"])
        return document, partial
    operators = [name for name in raw if name.startswith("$")]
    if operators:
        if len(operators) != len(raw):
            raise MongoDocumentError("malformed_patch", "patch mixes $-operators and fields")
        document, partial = _working_copy(state, key)
        apply_operators(document, raw)
        return document, partial
    if not raw and had_version:
        return _working_copy(state, key)  # `{"$v": 1}` alone changes nothing
    return _replacement(state, raw, key), False


def _replacement(state: _State, raw: dict[str, object], key: object) -> Document:
    """A patch without operators replaces the document; `_id` is kept from before."""
    document = to_document(raw)
    if "_id" in document:
        return document
    if state.doc is not None and "_id" in state.doc:
        return {"_id": state.doc["_id"], **document}
    if _present(key):
        return {"_id": _id_from_key(key), **document}
    return document


def _apply_change(state: _State, change: dict[str, object]) -> tuple[Document | None, bool]:
    op = change.get("op")
    if op in ("c", "r"):
        return _full_document(change.get("after"), op), False
    if op == "d":
        return None, False
    if op != "u":
        raise MongoDocumentError("unknown_op", f"{op!r} (expected c, r, u or d)")
    after, patch = change.get("after"), change.get("patch")
    description, key = change.get("update_description"), change.get("key")
    if _present(after):
        return _full_document(after, op), False
    if _present(patch):
        return _apply_patch(state, patch, key)
    if isinstance(description, dict):
        document, partial = _working_copy(state, key)
        apply_update_description(document, description)
        return document, partial
    raise MongoDocumentError("missing_patch", "op 'u' without after, patch or updateDescription")


def fold(
    base: str | None, base_partial: bool, changes: list[dict[str, object]]
) -> list[FoldResult]:
    """Apply `changes` in order to `base`; one `{doc, partial, error}` per change.

    A change that fails leaves the document as it was (its result repeats the previous
    document with `error` set) and folding goes on with the next change.
    """
    state = _initial_state(base, base_partial)
    results: list[FoldResult] = []
    for change in changes:
        try:
            document, partial = _apply_change(state, change)
            text = None if document is None else render(document)
        except MongoDocumentError as exc:
            results.append({"doc": state.text, "partial": state.partial, "error": str(exc)})
            continue
        except Exception as exc:  # noqa: BLE001 - one bad change must not stop the fold
            error = f"internal_error: {type(exc).__name__}: {exc}"
            results.append({"doc": state.text, "partial": state.partial, "error": error})
            continue
        state = _State(document, text, partial)
        results.append({"doc": text, "partial": partial, "error": None})
    return results
