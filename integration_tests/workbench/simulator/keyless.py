"""A keyless source table (no primary key, no Kafka key) whose rows repeat.

The table is a multiset: identical rows exist as many times as they were inserted, an
update changes one copy, a delete removes one copy, a truncate empties the table. The
simulator keeps the table as a list of rows and predicts its state as a multiset
(``collections.Counter``) independently of the pipeline's rules; the Debezium emitter
of the relational simulator writes its messages (value-only files or kcat records, no
message key, full ``before`` images as Oracle with ALL COLUMNS supplemental logging, SQL
Server and Db2 send them).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .config import SimConfig
from .debezium import DebeziumEmitter, TableCodec
from .landing import write_batch
from .schema import INT32, INT64, STRING, ColumnSpec, TableSpec
from .source_db import Change, Row, Transaction

AUDIT_LOG = TableSpec(
    name="audit_log",
    columns=[
        ColumnSpec("account", INT32, False),
        ColumnSpec("action", STRING, False),
        ColumnSpec("amount_cents", INT64, True),
    ],
    key=(),
)
"""The keyless table: few distinct values, so that identical rows are common."""

_ACTIONS = ("login", "logout", "transfer", "refund")


class _KeylessCodec(TableCodec):
    """A keyless table's codec: Debezium sends no message key for it."""

    def key_text(self, row: Row, schemas: bool) -> str:  # type: ignore[override]
        return None  # type: ignore[return-value]


@dataclass(frozen=True)
class KeylessSimConfig:
    """``flavour``/``database``/``server`` as in SimConfig; ``batches`` of ``changes``
    changes each after a snapshot of ``initial_rows`` rows; ``truncate_batch``: the batch
    (1-based) that starts with a truncate, or None."""

    flavour: str = "db2"
    database: str = "KLDB"
    server: str = "keyless1"
    seed: int = 7
    initial_rows: int = 30
    batches: int = 2
    changes: int = 40
    truncate_batch: int | None = None
    schemas_enable: bool = False


@dataclass
class KeylessSimulation:
    config: KeylessSimConfig
    source_id: str
    expected: list[Counter[tuple[object, ...]]]
    """The table's rows (as column-value tuples) and their counts after each batch
    (index 0: after the snapshot and the first batch's changes, when delivered together)."""


class KeylessSource:
    """The keyless table as a list of rows (copies kept apart)."""

    def __init__(self, config: KeylessSimConfig) -> None:
        self.config = config
        self.rng = random.Random(f"keyless:{config.seed}:{config.flavour}")
        self.rows: list[Row] = []
        self.seq = 0
        self.ts_ms = 1_700_000_000_000

    def _new_row(self) -> Row:
        rng = self.rng
        # a third of new rows repeat a row that exists: duplicates are the point
        if self.rows and rng.random() < 0.35:
            return dict(rng.choice(self.rows))
        return {
            "account": rng.randrange(1, 6),
            "action": rng.choice(_ACTIONS),
            "amount_cents": None if rng.random() < 0.1 else rng.randrange(0, 5) * 100,
        }

    def _next(self, changes: list[Change], snapshot: bool = False) -> Transaction:
        self.seq += 1
        self.ts_ms += 1000 + self.rng.randrange(1000)
        return Transaction(0 if snapshot else self.seq, self.ts_ms, changes, snapshot=snapshot)

    def snapshot(self) -> Transaction:
        for _ in range(self.config.initial_rows):
            self.rows.append(self._new_row())
        return self._next([Change("r", AUDIT_LOG.name, None, dict(r)) for r in self.rows], True)

    def batch(self, truncate: bool) -> list[Transaction]:
        rng = self.rng
        txs: list[Transaction] = []
        if truncate:
            self.rows.clear()
            txs.append(self._next([Change("t", AUDIT_LOG.name, None, None)]))
        for _ in range(self.config.changes):
            roll = rng.random()
            if not self.rows or roll < 0.4:
                row = self._new_row()
                self.rows.append(row)
                change = Change("c", AUDIT_LOG.name, None, dict(row))
            elif roll < 0.75:
                index = rng.randrange(len(self.rows))
                before = self.rows[index]
                after = dict(before)
                if rng.random() < 0.5:
                    after["amount_cents"] = rng.randrange(0, 5) * 100
                else:
                    after["action"] = rng.choice(_ACTIONS)
                self.rows[index] = after
                change = Change("u", AUDIT_LOG.name, dict(before), dict(after))
            else:
                before = self.rows.pop(rng.randrange(len(self.rows)))
                change = Change("d", AUDIT_LOG.name, dict(before), None)
            txs.append(self._next([change]))
        return txs

    def state(self) -> Counter[tuple[object, ...]]:
        return Counter(tuple(row[c] for c in AUDIT_LOG.column_names) for row in self.rows)


def _emitter(config: KeylessSimConfig) -> tuple[DebeziumEmitter, TableCodec]:
    sim_config = SimConfig(
        seed=config.seed,
        flavour=config.flavour,
        database=config.database,
        server=config.server,
        schemas_enable=config.schemas_enable,
        transaction_metadata=False,
    )
    emitter = DebeziumEmitter(sim_config)
    codec = _KeylessCodec(AUDIT_LOG, sim_config, emitter.database, emitter.schema)
    emitter.codecs[AUDIT_LOG.name] = codec
    emitter._offsets[codec.topic] = 0  # noqa: SLF001 - registering one more topic
    return emitter, codec


def simulate_keyless(
    config: KeylessSimConfig,
    out_dir: Path,
    *,
    fmt: str = "value_lines",
    shuffle: bool = False,
    duplicate_fraction: float = 0.0,
) -> KeylessSimulation:
    """Write the snapshot and ``config.batches`` batches under ``out_dir/batch-<n>/``
    (the snapshot goes with batch 1) and return the expected multiset after each batch."""
    source = KeylessSource(config)
    emitter, codec = _emitter(config)
    expected: list[Counter[tuple[object, ...]]] = []
    pending = [source.snapshot()]
    for number in range(1, config.batches + 1):
        pending += source.batch(truncate=config.truncate_batch == number)
        messages = emitter.emit(pending)
        pending = []
        write_batch(
            messages,
            out_dir / f"batch-{number}",
            number,
            fmt,
            shuffle=shuffle,
            duplicate_fraction=duplicate_fraction,
            seed=config.seed * 100 + number,
        )
        expected.append(source.state())
    schema = emitter.schema
    source_id = f"{emitter.database}.{schema}.{codec.table}".lower()
    return KeylessSimulation(config, source_id, expected)
