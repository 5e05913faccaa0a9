"""Deterministic simulator of a MongoDB source captured by Debezium, with its oracle.

* :mod:`.mongodb_values` - BSON values, normal form, extended JSON, key text.
* :mod:`.mongodb_paths` - dotted-path modifications (the oracle's update engine).
* :mod:`.mongodb_source` - seeded workload over ``customers`` and ``orders``.
* :mod:`.mongodb_oracle` - what a mid-stream capture tells (partial documents).
* :mod:`.mongodb_emitter` - Debezium 1.9 oplog / 2.7 change-stream messages.

>>> result = simulate_mongodb(MongoSimConfig(seed=1))
>>> result.batches[0][0].topic
'mongo1.inventory.customers'

Landing files: ``landing.write_batch(result.batches[i], out_dir, i, fmt)`` as for the
relational simulator; the expected states: :func:`write_mongo_expected`.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .debezium import Message
from .landing import FORMATS, write_batch
from .mongodb_config import COLLECTIONS, GENERATIONS, MongoSimConfig
from .mongodb_emitter import MongoEmitter
from .mongodb_oracle import CaptureTracker
from .mongodb_source import MongoOp, MongoSource
from .mongodb_values import normal_form

ExpectedState = dict[str, dict[str, str]]
"""``"<db>.<collection>"`` -> canonical key text -> document in normal form."""


@dataclass
class MongoSimResult:
    config: MongoSimConfig
    batches: list[list[Message]] = field(default_factory=list)
    expected: list[ExpectedState] = field(default_factory=list)
    """Per batch (cumulative): the source's true state after the batch."""
    expected_partial: list[ExpectedState] = field(default_factory=list)
    """Per batch: keys known only through captured updates, with their partial document."""
    expected_visible: list[ExpectedState] = field(default_factory=list)
    """Per batch: what a correct consumer of the landed messages holds: complete documents
    (as in ``expected``) for keys with a captured full document, partial documents for the
    others seen; keys without any captured message are absent."""
    ops: list[list[MongoOp]] = field(default_factory=list)
    """Per batch: the source operations (including those not captured)."""
    redelivered: list[list[tuple[str, int]]] = field(default_factory=list)
    """Per batch: (topic, offset) of the messages that are redeliveries."""
    topics: dict[str, str] = field(default_factory=dict)
    """Collection -> Kafka topic ``<server>.<db>.<collection>``."""
    namespaces: dict[str, str] = field(default_factory=dict)
    """Collection -> expected-state table name ``<db>.<collection>``."""

    @property
    def messages(self) -> list[Message]:
        return [m for batch in self.batches for m in batch]


def _redelivery_run(messages: list[Message], fraction: float, rng: random.Random) -> list[Message]:
    """A contiguous run of ``fraction`` of the messages (what a restarted connector
    re-publishes from its last committed offset)."""
    if fraction <= 0 or not messages:
        return []
    count = min(len(messages), max(1, round(len(messages) * fraction)))
    start = rng.randrange(len(messages) - count + 1)
    return messages[start : start + count]


def simulate_mongodb(config: MongoSimConfig) -> MongoSimResult:
    """Run the whole simulation (batch 0 starts with the snapshot reads)."""
    source = MongoSource(config)
    emitter = MongoEmitter(config)
    tracker = CaptureTracker(config.generation, config.full_document)
    rng = random.Random(f"mongodb-redelivery:{config.seed}")
    result = MongoSimResult(
        config=config,
        topics=dict(emitter.topics),
        namespaces={c: f"{config.database}.{c}" for c in COLLECTIONS},
    )
    pending: list[Message] = []
    for index in range(config.batches):
        ops = source.snapshot() if index == 0 else []
        ops += source.generate_batch()
        captured = [op for op in ops if op.seq >= config.capture_starts_after]
        carried = [emitter.republish(m) for m in pending]  # published before the new ones
        fresh = emitter.emit(captured)
        for op in captured:
            tracker.observe(op)
        run = _redelivery_run(fresh, config.redeliver_fraction, rng)
        pending = []
        if run and index + 1 < config.batches and rng.random() < 0.5:
            pending, run = run, []
        again = [emitter.republish(m) for m in run]
        result.batches.append(carried + fresh + again)
        result.redelivered.append([(m.topic, m.offset) for m in carried + again])
        result.ops.append(ops)
        _snapshot_state(result, source, tracker)
    return result


def _snapshot_state(result: MongoSimResult, source: MongoSource, tracker: CaptureTracker) -> None:
    expected: ExpectedState = {}
    partial: ExpectedState = {}
    visible: ExpectedState = {}
    for collection in COLLECTIONS:
        ns = result.namespaces[collection]
        docs = source.documents(collection)
        expected[ns] = {k: normal_form(docs[k]) for k in sorted(docs)}
        partial[ns] = tracker.partial_texts(collection)
        complete = tracker.complete[collection]
        seen = {k: v for k, v in expected[ns].items() if k in complete}
        visible[ns] = dict(sorted((seen | partial[ns]).items()))
    result.expected.append(expected)
    result.expected_partial.append(partial)
    result.expected_visible.append(visible)


def mongo_expected_jsonable(result: MongoSimResult) -> dict[str, object]:
    """The expected states as one JSON-ready object (documents stay normal-form texts)."""
    c = result.config
    return {
        "server": c.server,
        "database": c.database,
        "generation": c.generation,
        "topics": result.topics,
        "namespaces": result.namespaces,
        "batches": [
            {
                "batch": i,
                "expected": result.expected[i],
                "expected_partial": result.expected_partial[i],
                "expected_visible": result.expected_visible[i],
            }
            for i in range(len(result.batches))
        ],
    }


def write_mongo_expected(result: MongoSimResult, path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(mongo_expected_jsonable(result), ensure_ascii=False, indent=2)
    out.write_text(text + "\n", encoding="utf-8", newline="\n")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: ``python -m workbench.simulator.mongodb --out DIR [options]``."""
    p = argparse.ArgumentParser(prog="python -m workbench.simulator.mongodb")
    p.add_argument("--out", required=True, type=Path, help="landing directory")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--server", default="mongo1")
    p.add_argument("--database", default="inventory")
    p.add_argument("--generation", choices=GENERATIONS, default="oplog")
    p.add_argument("--batches", type=int, default=2)
    p.add_argument("--transactions", type=int, default=40, help="transactions per batch")
    p.add_argument("--schemas-enable", action="store_true")
    p.add_argument("--no-full-document", action="store_true")
    p.add_argument("--no-tombstones", action="store_true")
    p.add_argument("--redeliver-fraction", type=float, default=0.0)
    p.add_argument("--v2-patch-fraction", type=float, default=0.2)
    p.add_argument("--capture-starts-after", type=int, default=0)
    p.add_argument("--format", choices=FORMATS, default="value_lines", dest="fmt")
    p.add_argument("--expected-json", type=Path, default=None)
    a = p.parse_args(argv)
    try:
        config = MongoSimConfig(
            seed=a.seed,
            server=a.server,
            database=a.database,
            transactions=a.transactions,
            batches=a.batches,
            generation=a.generation,
            schemas_enable=a.schemas_enable,
            full_document=not a.no_full_document,
            tombstones=not a.no_tombstones,
            redeliver_fraction=a.redeliver_fraction,
            v2_patch_fraction=a.v2_patch_fraction,
            capture_starts_after=a.capture_starts_after,
        )
    except ValueError as exc:
        p.error(str(exc))
    result = simulate_mongodb(config)
    files = sum(len(write_batch(b, a.out, i, a.fmt)) for i, b in enumerate(result.batches))
    if a.expected_json is not None:
        write_mongo_expected(result, a.expected_json)
    counts = [len(b) for b in result.batches]
    print(f"simulated mongodb {a.generation}: messages per batch {counts}; {files} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
