"""Glue for the Alibaba-style simulators: workload -> emitter -> batches + oracle.

>>> result = simulate_dataworks(AlibabaSimConfig(seed=3))
>>> sorted(result.expected[-1])
['simdb.accounts', 'simdb.events', 'simdb.items']

Every simulate function returns an :class:`AlibabaSimResult`: the messages of each batch
(:class:`~.debezium.Message`, written unchanged by :func:`.landing.write_batch`) and, after
each batch, the cumulative expected state of every table, computed from the source's own
rows (never from the messages) in the raw value form of the format.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from .alibaba_source import AlibabaSimConfig, AlibabaSource, AliTable, Key, Row, SourceTx
from .canal import CanalEmitter, canal_key_columns, canal_row
from .dataworks import (
    DataWorksEmitter,
    DataWorksOptions,
    Heartbeat,
    dw_columns,
    dw_key_columns,
    dw_row,
)
from .debezium import Message
from .maxwell import MaxwellEmitter, maxwell_key_columns, maxwell_row
from .ogg import OggEmitter, ogg_key_columns, ogg_row

FORMATS = ("dataworks", "canal", "maxwell", "ogg")

_sorted_dumps = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode


def _sort_key(key: Key) -> tuple[object, ...]:
    return tuple((v is None, v) for v in key)


@dataclass
class ExpectedTable:
    """Expected state of one source table, values in the format's raw form.

    ``key_columns``: the columns identifying a row (the primary key; DataWorks:
    ``#alibaba_rds_row_id#`` for a table without one), or None when the format carries no
    row identity (Canal/Maxwell without a primary key): ``rows`` is then a multiset.
    ``rows``: the last row image of every live row, sorted by key (multiset: by the row's
    sorted-key JSON text). A row not written since a column was added lacks that column.
    ``columns``: the table's current columns (as the format lists them).
    """

    key_columns: list[str] | None
    columns: list[str]
    rows: list[Row]

    def by_key(self) -> dict[Key, Row]:
        """Key tuple (raw values) -> row; only for tables with key columns."""
        if self.key_columns is None:
            raise ValueError("a table without key columns is a multiset: use rows")
        return {tuple(r[k] for k in self.key_columns): r for r in self.rows}

    def to_jsonable(self) -> dict[str, object]:
        """The corpus ``*.expected.json`` form: ``{"key_columns": [...] | null, "rows": [...]}``."""
        return {"key_columns": self.key_columns, "rows": self.rows}


ExpectedState = dict[str, ExpectedTable]
"""``"<database>.<table>"`` -> expected table."""


@dataclass
class AlibabaSimResult:
    format: str
    config: AlibabaSimConfig
    topic: str
    batches: list[list[Message]] = field(default_factory=list)
    expected: list[ExpectedState] = field(default_factory=list)
    """Cumulative expected state after each batch."""
    transactions: list[list[SourceTx]] = field(default_factory=list)
    heartbeats: list[dict[str, Heartbeat]] = field(default_factory=list)
    """DataWorks: the latest heartbeat per topic after each batch (empty dicts otherwise)."""
    redelivered: list[list[Message]] = field(default_factory=list)
    """The copies appended to each batch by ``redeliver_fraction``."""

    @property
    def messages(self) -> list[Message]:
        return [m for batch in self.batches for m in batch]

    @property
    def key_columns(self) -> dict[str, list[str] | None]:
        return {t: e.key_columns for t, e in self.expected[-1].items()}


class _Emitter(Protocol):
    redelivery_units: list[list[Message]]

    def emit(self, txs: list[SourceTx]) -> list[Message]: ...
    def publish_again(self, messages: list[Message]) -> list[Message]: ...


RowEncoder = Callable[[AliTable, Row, int], Row]


def expected_state(
    source: AlibabaSource,
    encode: RowEncoder,
    key_columns: Callable[[AliTable], list[str] | None],
    columns: Callable[[AliTable], list[str]],
) -> ExpectedState:
    """The source's current rows in a format's raw form (see :class:`ExpectedTable`)."""
    out: ExpectedState = {}
    for table, rows in source.state().items():
        spec = source.specs[table]
        keys = key_columns(spec)
        encoded = [encode(spec, row, row_id) for row_id, row in rows.items()]
        if keys is None:
            encoded.sort(key=_sorted_dumps)
        else:
            encoded.sort(key=lambda r, k=keys: _sort_key(tuple(r[c] for c in k)))  # type: ignore[misc]
        out[f"{source.config.database}.{table}"] = ExpectedTable(keys, columns(spec), encoded)
    return out


def _run(
    fmt: str,
    config: AlibabaSimConfig,
    emitter: _Emitter,
    topic: str,
    state: Callable[[AlibabaSource], ExpectedState],
    heartbeat: Callable[[], Heartbeat | None] = lambda: None,
) -> AlibabaSimResult:
    source = AlibabaSource(config)
    rng = random.Random(f"redeliver:{fmt}:{config.seed}")
    result = AlibabaSimResult(fmt, config, topic)
    pending: list[list[Message]] = []
    for index in range(config.batches):
        txs = source.generate_batch()
        emitter.redelivery_units.clear()
        messages = emitter.emit(txs)
        units = list(emitter.redelivery_units)
        again: list[Message] = []
        for unit in pending:
            again += emitter.publish_again(unit)
        pending = []
        if config.redeliver_fraction > 0 and units:
            count = min(len(units), max(1, round(len(units) * config.redeliver_fraction)))
            pending = [units[i] for i in sorted(rng.sample(range(len(units)), count))]
        if index == config.batches - 1:  # the last batch redelivers its own units at its end
            for unit in pending:
                again += emitter.publish_again(unit)
        result.batches.append(messages + again)
        result.redelivered.append(again)
        result.transactions.append(txs)
        result.expected.append(state(source))
        hb = heartbeat()
        result.heartbeats.append({topic: hb} if hb is not None else {})
    return result


def simulate_dataworks(
    config: AlibabaSimConfig, options: DataWorksOptions | None = None
) -> AlibabaSimResult:
    """DataWorks real-time sync records of the workload (see :mod:`.dataworks`)."""
    opts = options or DataWorksOptions()
    emitter = DataWorksEmitter(config.database, opts, config.seed)

    def state(source: AlibabaSource) -> ExpectedState:
        return expected_state(
            source,
            lambda spec, row, row_id: dw_row(spec, row, row_id, opts),
            dw_key_columns,
            lambda spec: [n for n, _ in dw_columns(spec)],
        )

    return _run("dataworks", config, emitter, emitter.topic, state, lambda: emitter.heartbeat)


def _run_rows(
    fmt: str,
    config: AlibabaSimConfig,
    emitter: _Emitter,
    topic: str,
    encode: Callable[[AliTable, Row], Row],
    key_columns: Callable[[AliTable], list[str] | None],
) -> AlibabaSimResult:
    """:func:`_run` for a format that shows the table's own columns (no row id), each row
    in its value form (``encode``)."""

    def state(source: AlibabaSource) -> ExpectedState:
        return expected_state(
            source,
            lambda spec, row, _id: encode(spec, row),
            key_columns,
            lambda spec: list(spec.column_names),
        )

    return _run(fmt, config, emitter, topic, state)


def simulate_canal(config: AlibabaSimConfig, topic: str | None = None) -> AlibabaSimResult:
    """Canal JSON messages of the workload (see :mod:`.canal`)."""
    emitter = CanalEmitter(config.database, config.seed, topic)
    return _run_rows("canal", config, emitter, emitter.topic, canal_row, canal_key_columns)


def simulate_maxwell(config: AlibabaSimConfig, topic: str | None = None) -> AlibabaSimResult:
    """Maxwell messages of the workload, keyed as Maxwell keys them (see :mod:`.maxwell`).

    Maxwell writes nothing for a TRUNCATE, so the workload must have none
    (``truncate_probability=0``)."""
    if config.truncate_probability > 0:
        raise ValueError("Maxwell writes nothing for TRUNCATE: set truncate_probability=0")
    emitter = MaxwellEmitter(config.database, config.seed, topic)
    return _run_rows("maxwell", config, emitter, emitter.topic, maxwell_row, maxwell_key_columns)


def simulate_ogg(
    config: AlibabaSimConfig, missing_flags: bool = False, topic: str | None = None
) -> AlibabaSimResult:
    """Oracle GoldenGate JSON records of the workload, compressed (see :mod:`.ogg`)."""
    emitter = OggEmitter(config.database, topic, missing_flags)
    return _run_rows("ogg", config, emitter, emitter.topic, ogg_row, ogg_key_columns)


def expected_to_jsonable(state: ExpectedState) -> dict[str, dict[str, object]]:
    """``{"<db>.<table>": {"key_columns": ..., "rows": [...]}}`` (the corpus form)."""
    return {table: state[table].to_jsonable() for table in sorted(state)}


def write_expected_json(state: ExpectedState, path: str | Path) -> Path:
    """Write :func:`expected_to_jsonable` as UTF-8 JSON (newline-terminated)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(expected_to_jsonable(state), ensure_ascii=False, indent=2)
    p.write_text(text + "\n", encoding="utf-8", newline="\n")
    return p
