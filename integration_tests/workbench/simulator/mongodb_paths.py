"""Dotted-path modifications on Python BSON documents (the oracle's update engine).

A :class:`Mod` is one logical change of an update: ``set`` a path to a value (a new
document field is appended at the end, an array index equal to the length appends),
``unset`` a path, or ``truncate`` an array to ``size`` elements. Paths are tuples whose
``int`` components index arrays. :func:`apply_mods` applies an update's mods in MongoDB's
order (paths sorted, names lexicographically, indexes numerically: since MongoDB 5.0
update operators process fields in that order, so new fields are appended in it).

With ``create_missing=True`` a ``set`` through a missing parent creates embedded
documents (MongoDB ``$set`` semantics; an index into a created document is the field
name ``"2"``), and an ``unset``/``truncate`` of a missing path is a no-op: that is how
the partial documents of a capture that started mid-stream are defined.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .mongodb_values import Document, Value

PathPart = str | int
Path = tuple[PathPart, ...]

MOD_KINDS: tuple[str, ...] = ("set", "unset", "truncate")


@dataclass(frozen=True)
class Mod:
    kind: str
    """``set``, ``unset`` or ``truncate``."""
    path: Path
    value: Value = None
    """``set``: the new value."""
    size: int = 0
    """``truncate``: the new array length."""
    label: str = ""
    """Workload category: ``set_top``, ``set_new_field``, ``set_nested``,
    ``set_array_element``, ``append_array``, ``truncate_array``, ``unset``."""

    def __post_init__(self) -> None:
        if self.kind not in MOD_KINDS:
            raise ValueError(f"Mod.kind must be one of {MOD_KINDS}, got {self.kind!r}")
        if not self.path or not isinstance(self.path[0], str):
            raise ValueError(f"a path starts with a field name, got {self.path!r}")


def dotted(path: Path) -> str:
    return ".".join(str(p) for p in path)


def path_sort_key(path: Path) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in path)


def is_prefix(a: Path, b: Path) -> bool:
    return len(a) <= len(b) and b[: len(a)] == a


def conflicts(a: Path, b: Path) -> bool:
    """Two paths of one update may not overlap (MongoDB rejects such updates)."""
    return is_prefix(a, b) or is_prefix(b, a)


def get_path(doc: Value, path: Path) -> tuple[bool, Value]:
    """(found, value) at ``path``."""
    node = doc
    for part in path:
        if isinstance(node, dict):
            key = str(part)
            if key not in node:
                return False, None
            node = node[key]
        elif isinstance(node, list) and isinstance(part, int):
            if part >= len(node):
                return False, None
            node = node[part]
        else:
            return False, None
    return True, node


def _child(node: Value, part: PathPart, create: bool) -> Value:
    if isinstance(node, dict):
        key = str(part)
        if key not in node:
            if not create:
                raise KeyError(f"missing field {key!r}")
            node[key] = {}
        return node[key]
    if isinstance(node, list) and isinstance(part, int):
        if part >= len(node):
            if not create:
                raise IndexError(f"index {part} past the array end")
            node.extend([None] * (part - len(node)))
            node.append({})
        return node[part]
    raise TypeError(f"cannot descend into {type(node).__name__} with {part!r}")


def _set(doc: Document, path: Path, value: Value, create: bool) -> None:
    node: Value = doc
    for part in path[:-1]:
        node = _child(node, part, create)
    last = path[-1]
    if isinstance(node, dict):
        node[str(last)] = value
    elif isinstance(node, list) and isinstance(last, int):
        if last > len(node) and not create:
            raise IndexError(f"index {last} past the array end")
        node.extend([None] * (last - len(node)))
        if last == len(node):
            node.append(value)
        else:
            node[last] = value
    else:
        raise TypeError(f"cannot set {dotted(path)} inside {type(node).__name__}")


def _unset(doc: Document, path: Path) -> None:
    found, parent = get_path(doc, path[:-1])
    if found and isinstance(parent, dict):
        parent.pop(str(path[-1]), None)


def _truncate(doc: Document, path: Path, size: int) -> None:
    found, target = get_path(doc, path)
    if found and isinstance(target, list):
        del target[size:]


def apply_mods(
    doc: Document, mods: Iterable[Mod], *, create_missing: bool = False, in_order: bool = False
) -> None:
    """Apply an update's mods to ``doc`` in place, in MongoDB's path order (``in_order``:
    as given, for the order in which a message conveys them)."""
    for mod in mods if in_order else sorted(mods, key=lambda m: path_sort_key(m.path)):
        if mod.kind == "set":
            _set(doc, mod.path, clone(mod.value), create_missing)
        elif mod.kind == "unset":
            _unset(doc, mod.path)
        else:
            _truncate(doc, mod.path, mod.size)


def clone(value: Value) -> Value:
    """Deep copy of a BSON value (the typed scalars are immutable)."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value
