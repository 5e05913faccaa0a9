"""Applying MongoDB updates to a normal-form document, in place.

Three update languages reach a Debezium MongoDB consumer:

* oplog `$set` / `$unset` (MongoDB < 5): `set_path` / `unset_path` on dotted paths;
* oplog v2 diffs (MongoDB 5+, `{"$v": 2, "diff": {...}}`): `apply_diff`;
* change-stream `updateDescription`: `apply_update_description`.

Values written are normalised from extended JSON (`to_value`). Callers pass a copy
(`copy_value`) so that a failing update leaves their document untouched.
"""

from __future__ import annotations

import re

from python_udfs.mongodb_extjson import (
    Document,
    MongoDocumentError,
    Value,
    join_path,
    parse_json,
    to_value,
)

MAX_ARRAY_PADDING = 1_500_000  # MongoDB refuses to pad an array past this many elements
_INDEX = re.compile(r"[0-9]+")
_MISSING = object()
Container = dict[str, Value] | list[Value]


def copy_value(value: Value) -> Value:
    """A copy of the containers of a value (leaves are immutable and shared)."""
    if isinstance(value, dict):
        return {key: copy_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_value(item) for item in value]
    return value


def _patch_error(detail: str) -> MongoDocumentError:
    return MongoDocumentError("malformed_patch", detail)


# ---------------------------------------------------------------- paths


def split_path(path: object) -> list[str]:
    """A dotted path (`address.city`, `items.2.qty`) to its segments."""
    if not isinstance(path, str) or not path:
        raise MongoDocumentError("patch_path_invalid", f"path must be a non-empty string: {path!r}")
    segments = path.split(".")
    if "" in segments:
        raise MongoDocumentError("patch_path_invalid", f"empty segment in path '{path}'")
    return segments


def _array_index(segment: str, path: str) -> int | None:
    """The array index a segment names, or None when it is not a number."""
    if not _INDEX.fullmatch(segment):
        return None
    index = int(segment)
    if index > MAX_ARRAY_PADDING:
        raise MongoDocumentError("patch_path_invalid", f"array index {index} too large in '{path}'")
    return index


def _pad(array: list[Value], length: int) -> None:
    """Extend an array with nulls up to `length` elements, like MongoDB."""
    if len(array) < length:
        array.extend([None] * (length - len(array)))


def _lookup(container: Container, segment: str) -> object:
    """The child a segment names, or `_MISSING`."""
    if isinstance(container, dict):
        return container.get(segment, _MISSING)
    if not _INDEX.fullmatch(segment) or int(segment) >= len(container):
        return _MISSING
    return container[int(segment)]


def _describe(value: object) -> str:
    return "null" if value is None else type(value).__name__


# ---------------------------------------------------------------- $set / $unset


def _child_for_write(container: Container, segment: str, prefix: str, path: str) -> Container:
    """The container a segment names, created (`{}`) where missing."""
    if isinstance(container, dict):
        child = container.get(segment, _MISSING)
        if child is _MISSING:
            child = container[segment] = {}
    else:
        index = _array_index(segment, path)
        if index is None:
            raise MongoDocumentError(
                "patch_path_through_array",
                f"'{path}': '{prefix}' is an array and '{segment}' is not an index",
            )
        if index >= len(container):
            _pad(container, index)
            container.append({})
        child = container[index]
    if not isinstance(child, (dict, list)):
        raise MongoDocumentError(
            "patch_path_through_scalar",
            f"'{path}': '{join_path(prefix, segment)}' is {_describe(child)}, not a document",
        )
    return child


def _assign(container: Container, segment: str, value: Value, prefix: str, path: str) -> None:
    if isinstance(container, dict):
        container[segment] = value
        return
    index = _array_index(segment, path)
    if index is None:
        raise MongoDocumentError(
            "patch_path_through_array",
            f"'{path}': '{prefix}' is an array and '{segment}' is not an index",
        )
    if index < len(container):
        container[index] = value
    else:
        _pad(container, index)
        container.append(value)


def set_path(document: Document, path: object, value: Value) -> None:
    """`$set` one dotted path: intermediate documents created, arrays padded with null."""
    segments = split_path(path)
    container: Container = document
    prefix = ""
    for segment in segments[:-1]:
        container = _child_for_write(container, segment, prefix, str(path))
        prefix = join_path(prefix, segment)
    _assign(container, segments[-1], value, prefix, str(path))


def unset_path(document: Document, path: object) -> None:
    """`$unset` one dotted path: a field is removed, an array element becomes null."""
    segments = split_path(path)
    container: object = document
    for segment in segments[:-1]:
        container = _lookup(container, segment)  # type: ignore[arg-type]
        if not isinstance(container, (dict, list)):
            return
    last = segments[-1]
    if isinstance(container, dict):
        container.pop(last, None)
    elif isinstance(container, list) and _lookup(container, last) is not _MISSING:
        container[int(last)] = None


def _object_body(body: object, what: str) -> dict[str, object]:
    if not isinstance(body, dict):
        raise _patch_error(f"{what} needs an object, got {_describe(body)}")
    return body


def apply_operators(document: Document, patch: dict[str, object]) -> None:
    """An oplog update made of `$set` / `$unset` operators."""
    for operator in patch:
        if operator not in ("$set", "$unset"):
            raise MongoDocumentError(
                "unknown_patch_operator", f"{operator} is not supported (only $set and $unset)"
            )
    for operator, body in patch.items():
        fields = _object_body(body, operator)
        for path, raw in fields.items():
            if operator == "$set":
                set_path(document, path, to_value(raw, path))
            else:
                unset_path(document, path)


# ---------------------------------------------------------------- v2 diffs


def _is_array_diff(diff: dict[str, object], where: str) -> bool:
    marker = diff.get("a", _MISSING)
    if marker is _MISSING:
        return False
    if marker is not True:
        raise _patch_error(f"array diff marker 'a' must be true at '{where}'")
    return True


def _apply_subdiff(
    container: Container, slot: str | int, diff: object, where: str, root: Document
) -> None:
    """Apply an object or array sub-diff to `container[slot]` (`where` from `root`)."""
    body = _object_body(diff, f"sub-diff at '{where}'")
    is_array = _is_array_diff(body, where)
    if isinstance(container, dict):
        current = container.get(slot, _MISSING)  # type: ignore[call-overload]
    else:
        current = container[slot] if slot < len(container) else _MISSING  # type: ignore[operator,index]
    if current is _MISSING:
        # the document is partial here: what the sub-diff sets is created as `$set` would
        # (embedded documents, numeric segments as field names); deletes and truncations
        # of what is not there change nothing
        for kind, path, value in _flatten_diff(body, where):
            if kind == "set":
                set_path(root, path, to_value(value, path))
        return
    if is_array and isinstance(current, list):
        _apply_array_diff(current, body, where, root)
    elif not is_array and isinstance(current, dict):
        apply_diff(current, body, where, root)
    else:
        wanted = "an array" if is_array else "a document"
        raise MongoDocumentError(
            "patch_path_through_scalar", f"'{where}' is {_describe(current)}, not {wanted}"
        )


def _flatten_diff(diff: dict[str, object], where: str) -> list[tuple[str, str, object]]:
    """A v2 (sub-)diff as leaf operations from the root: (`set`, path, value), (`unset`,
    path, None), (`truncate`, path, length), in the diff's order."""
    operations: list[tuple[str, str, object]] = []
    is_array = _is_array_diff(diff, where)
    for key, body in diff.items():
        if is_array and key == "a":
            continue
        if is_array and key == "l":
            operations.append(("truncate", where, body))
        elif key == "d" and not is_array:
            operations += [("unset", join_path(where, f), None) for f in _object_body(body, "d")]
        elif key in ("u", "i") and not is_array:
            fields = _object_body(body, f"diff '{key}'")
            operations += [("set", join_path(where, f), v) for f, v in fields.items()]
        elif is_array and key[:1] == "u" and _array_index(key[1:], where) is not None:
            operations.append(("set", join_path(where, key[1:]), body))
        elif key[:1] == "s" and len(key) > 1:
            sub = _object_body(body, f"sub-diff at '{join_path(where, key[1:])}'")
            operations += _flatten_diff(sub, join_path(where, key[1:]))
        else:
            raise _patch_error(f"unknown diff key '{key}' at '{where}'")
    return operations


def apply_diff(
    document: Document, diff: object, where: str = "", root: Document | None = None
) -> None:
    """A MongoDB 5+ object diff: `d` delete, `u` update, `i` insert, `s<field>` sub-diff."""
    root = document if root is None else root
    for key, body in _object_body(diff, "diff").items():
        if key == "d":
            for field in _object_body(body, "diff 'd'"):
                document.pop(field, None)
        elif key == "u":
            for field, raw in _object_body(body, "diff 'u'").items():
                document[field] = to_value(raw, join_path(where, field))
        elif key == "i":
            for field, raw in _object_body(body, "diff 'i'").items():
                document.pop(field, None)
                document[field] = to_value(raw, join_path(where, field))
        elif key.startswith("s") and len(key) > 1:
            _apply_subdiff(document, key[1:], body, join_path(where, key[1:]), root)
        else:
            raise _patch_error(f"unknown object diff key '{key}' at '{where}'")


def _apply_array_diff(
    array: list[Value], diff: dict[str, object], where: str, root: Document
) -> None:
    """A MongoDB 5+ array diff: `l` new length, `u<i>` set element, `s<i>` element sub-diff."""
    for key, body in diff.items():
        index = _array_index(key[1:], where) if key[:1] in ("u", "s") else None
        if key == "a":
            continue
        if key == "l":
            if not isinstance(body, int) or isinstance(body, bool) or body < 0:
                raise _patch_error(f"array diff length must be a non-negative integer at '{where}'")
            if body > MAX_ARRAY_PADDING:
                raise MongoDocumentError("patch_path_invalid", f"array length {body} too large")
            del array[body:]
            _pad(array, body)
        elif index is not None and key[0] == "u":
            value = to_value(body, join_path(where, index))
            if index < len(array):
                array[index] = value
            else:
                _pad(array, index)
                array.append(value)
        elif index is not None:
            _apply_subdiff(array, index, body, join_path(where, index), root)
        else:
            raise _patch_error(f"unknown array diff key '{key}' at '{where}'")


# ---------------------------------------------------------------- updateDescription


def _truncate(document: Document, entry: object) -> None:
    body = _object_body(entry, "truncatedArrays entry")
    path, size = body.get("field"), body.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise _patch_error(f"truncatedArrays size must be a non-negative integer: {size!r}")
    target: object = document
    for segment in split_path(path):
        target = _lookup(target, segment) if isinstance(target, (dict, list)) else _MISSING
    if isinstance(target, list):
        del target[size:]
    elif target is not _MISSING:
        raise MongoDocumentError(
            "patch_path_through_scalar", f"truncatedArrays '{path}' is {_describe(target)}"
        )


def apply_update_description(document: Document, description: dict[str, object]) -> None:
    """Change-stream update: `truncatedArrays`, then `updatedFields`, then `removedFields`."""
    for entry in description.get("truncatedArrays") or []:
        _truncate(document, entry)
    updated = description.get("updatedFields")
    if isinstance(updated, str):
        updated = parse_json(updated)
    if updated is not None:
        for path, raw in _object_body(updated, "updatedFields").items():
            set_path(document, path, to_value(raw, path))
    removed = description.get("removedFields") or []
    if not isinstance(removed, list):
        raise _patch_error(f"removedFields needs an array, got {_describe(removed)}")
    for path in removed:
        unset_path(document, path)
