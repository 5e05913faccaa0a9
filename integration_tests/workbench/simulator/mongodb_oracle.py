"""What the captured messages tell a consumer, per document key (for mid-stream captures).

When the landing data starts mid-stream (``capture_starts_after``), a document whose
insert or snapshot read was never captured is known only through the updates captured
since: a *partial* document. :class:`CaptureTracker` follows the captured operations
(the source's logical operations, never the emitted messages) and keeps, per key, whether
the consumer has a complete document, a partial one (``{"_id": id}`` then the fields the
captured updates set, minus those they unset, built with MongoDB ``$set`` semantics, see
:mod:`.mongodb_paths`), or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .mongodb_config import COLLECTIONS
from .mongodb_paths import Mod, apply_mods, get_path, path_sort_key
from .mongodb_source import MongoOp
from .mongodb_values import Document, Value, normal_form


def _v2_key(before: Value, mod: Mod) -> tuple[tuple[int, int, str], ...]:
    """Where a mod sits in a v2 diff: per document level ``d``, ``u``, ``i``, then the
    sub-diffs ``s<field>`` by name; per array level ``l`` then elements by index."""
    key: list[tuple[int, int, str]] = []
    node = before
    for j, part in enumerate(mod.path):
        if isinstance(node, list) and isinstance(part, int):
            key.append((1, part, ""))
        else:
            last = j == len(mod.path) - 1
            present = isinstance(node, dict) and str(part) in node
            category = {"unset": 0, "truncate": 3}.get(mod.kind, 1 if present else 2)
            key.append((category if last else 3, 0, str(part)))
        _, node = get_path(node, (part,))
    return tuple(key)


def conveyed_mods(op: MongoOp, generation: str) -> tuple[Mod, ...]:
    """The mods of an update as its message conveys them, in the message's order: a v1
    oplog entry logs an array truncation as a ``$set`` of the whole (shortened) array; the
    v2 diff (``l``) and the change-stream ``truncatedArrays`` convey the truncation itself.
    The order matters only where a partial document gains fields: a v1 ``$set`` and
    ``updatedFields`` list paths sorted, a v2 diff groups them (see :func:`_v2_key`)."""
    if generation != "oplog":
        return tuple(sorted(op.mods, key=lambda m: path_sort_key(m.path)))
    if op.oplog_format == "v2":
        return tuple(sorted(op.mods, key=lambda m: _v2_key(op.before, m)))
    out: list[Mod] = []
    for mod in op.mods:
        if mod.kind == "truncate":
            _, array = get_path(op.after, mod.path)
            out.append(Mod("set", mod.path, array, label=mod.label))
        else:
            out.append(mod)
    return tuple(sorted(out, key=lambda m: path_sort_key(m.path)))


def carries_full_document(op: MongoOp, generation: str, full_document: bool) -> bool:
    if op.kind in ("read", "insert", "reinsert", "replace"):
        return True
    return op.kind == "update" and generation == "change_streams" and full_document


@dataclass
class CaptureTracker:
    generation: str
    full_document: bool
    complete: dict[str, set[str]] = field(default_factory=lambda: {c: set() for c in COLLECTIONS})
    partial: dict[str, dict[str, Document]] = field(
        default_factory=lambda: {c: {} for c in COLLECTIONS}
    )

    def observe(self, op: MongoOp) -> None:
        """Account for one captured operation."""
        complete, partial, key = self.complete[op.collection], self.partial[op.collection], op.key
        if op.kind == "delete":
            complete.discard(key)
            partial.pop(key, None)
        elif carries_full_document(op, self.generation, self.full_document):
            complete.add(key)
            partial.pop(key, None)
        elif key not in complete:
            doc = partial.setdefault(key, {"_id": op.doc_id})
            apply_mods(doc, conveyed_mods(op, self.generation), create_missing=True, in_order=True)

    def partial_texts(self, collection: str) -> dict[str, str]:
        docs = self.partial[collection]
        return {k: normal_form(docs[k]) for k in sorted(docs)}
