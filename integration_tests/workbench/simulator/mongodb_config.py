"""Configuration of the MongoDB source simulator."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

GENERATIONS: tuple[str, ...] = ("oplog", "change_streams")
COLLECTIONS: tuple[str, ...] = ("customers", "orders")
DEFAULT_INITIAL_DOCUMENTS: Mapping[str, int] = {"customers": 12, "orders": 16}


def _default_initial_documents() -> dict[str, int]:
    return dict(DEFAULT_INITIAL_DOCUMENTS)


def _fraction(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be within [0, 1], got {value!r}")


@dataclass(frozen=True)
class MongoSimConfig:
    """Everything that determines a MongoDB simulation run (same config -> same bytes).

    ``generation``: ``"oplog"`` (Debezium 1.9 oplog capture: ``patch``/``filter``) or
    ``"change_streams"`` (Debezium 2.7: ``updateDescription``, optional ``after``).
    ``full_document`` (change streams only): updates also carry ``after`` (the document
    after the change). ``v2_patch_fraction`` (oplog only): share of ``$set``/``$unset``
    updates logged in the MongoDB 5+ ``{"$v": 2, "diff": ...}`` form.
    ``redeliver_fraction``: after each batch a connector "restart" re-publishes that share
    of the batch's messages (a contiguous run), at the end of the same batch or at the start
    of the next one, with new offsets. ``capture_starts_after``: the first N source
    operations (snapshot reads first, then streamed operations) publish nothing.
    """

    seed: int = 1
    server: str = "mongo1"
    database: str = "inventory"
    initial_documents: Mapping[str, int] = field(default_factory=_default_initial_documents)
    transactions: int = 40
    """Transactions per batch (one to three operations each)."""
    batches: int = 2
    generation: str = "oplog"
    schemas_enable: bool = False
    full_document: bool = True
    tombstones: bool = True
    redeliver_fraction: float = 0.0
    v2_patch_fraction: float = 0.2
    capture_starts_after: int = 0

    def __post_init__(self) -> None:
        if self.generation not in GENERATIONS:
            raise ValueError(f"generation must be one of {GENERATIONS}, got {self.generation!r}")
        if self.transactions < 0 or self.batches < 0:
            raise ValueError("transactions and batches must be >= 0")
        unknown = set(self.initial_documents) - set(COLLECTIONS)
        if unknown:
            raise ValueError(f"initial_documents: unknown collections {sorted(unknown)}")
        if any(n < 0 for n in self.initial_documents.values()):
            raise ValueError("initial_documents must be >= 0")
        _fraction("redeliver_fraction", self.redeliver_fraction)
        _fraction("v2_patch_fraction", self.v2_patch_fraction)
        if self.capture_starts_after < 0:
            raise ValueError("capture_starts_after must be >= 0")
        for name in ("server", "database"):
            text = getattr(self, name)
            if not text or "." in text:
                raise ValueError(f"{name} must be a non-empty name without dots, got {text!r}")
