"""Glue: run the source DB workload through a connector emitter, batch by batch."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .config import SimConfig
from .debezium import DebeziumEmitter, Message
from .expected import consumer_state
from .source_db import SourceDatabase, State, Transaction


@dataclass
class BatchResult:
    """One batch: the logical transactions, the emitted messages and the oracle state
    (the source state as a correct consumer decodes it, see :mod:`.expected`)."""

    index: int
    transactions: list[Transaction]
    messages: list[Message]
    expected: State | None
    transaction_ids: dict[int, str] = field(default_factory=dict)
    """Transaction seq -> id (when ``SimConfig.transaction_metadata``)."""
    source: State | None = None
    """The source state itself (source values, not decoded), when ``expected`` is."""


@dataclass
class SimResult:
    config: SimConfig
    batches: list[list[Message]] = field(default_factory=list)
    expected: list[State] = field(default_factory=list)
    source: list[State] = field(default_factory=list)
    """The source state after each batch (source values: what `captured_text` reads)."""
    transactions: list[list[Transaction]] = field(default_factory=list)
    topics: dict[str, str] = field(default_factory=dict)
    """Logical table name -> Kafka topic."""
    transaction_ids: dict[int, str] = field(default_factory=dict)
    """Streamed transaction seq -> transaction id (when ``transaction_metadata``)."""
    data_collections: dict[str, str] = field(default_factory=dict)
    """Logical table name -> transaction-metadata data collection ``<db>.<schema>.<table>``."""

    @property
    def messages(self) -> list[Message]:
        """All messages of all batches, in publication order."""
        return [m for batch in self.batches for m in batch]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC: generation allocates millions of acyclic dicts/strings."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def make_emitter(config: SimConfig) -> DebeziumEmitter:
    """The emitter for ``config.flavour`` (extension point for other connectors)."""
    return DebeziumEmitter(config)


def iter_simulation(config: SimConfig, *, with_expected: bool = True) -> Iterator[BatchResult]:
    """Generate batches lazily (constant memory apart from the source tables)."""
    db = SourceDatabase(config)
    emitter = make_emitter(config)
    for index in range(config.batches):
        with gc_paused():
            txs = db.generate_batch()
            messages = emitter.emit(txs)
            source = db.expected_state() if with_expected else None
            expected = consumer_state(source, config) if source is not None else None
        yield BatchResult(index, txs, messages, expected, dict(emitter.transaction_ids), source)


def simulate(config: SimConfig) -> SimResult:
    """Run the whole simulation and keep every batch in memory."""
    emitter = make_emitter(config)
    result = SimResult(
        config=config,
        topics=emitter.topics,
        data_collections={t: emitter.data_collection(t) for t in emitter.codecs},
    )
    for batch in iter_simulation(config):
        assert batch.expected is not None
        result.batches.append(batch.messages)
        result.expected.append(batch.expected)
        assert batch.source is not None
        result.source.append(batch.source)
        result.transactions.append(batch.transactions)
        result.transaction_ids.update(batch.transaction_ids)
    return result
