"""Unit tests of the simulator's event stream (no Spark): incremental snapshots, snapshot
forms, transaction metadata, the schema-change topic and schema evolution.

The replay below applies the messages in the pipeline's order (source position, then
snapshot reads before streamed changes, then arrival) and must give the source database's
state: the proof, independent of Spark, that the ordering rule holds for incremental
snapshot reads emitted after the changes that followed them.
"""

from __future__ import annotations

import json
import random

import pytest
from test_simulator import decode_value, position_key  # same folder (rootdir import)

from workbench.simulator import FLAVOURS, SimConfig, SimResult, simulate
from workbench.simulator.source_db import ADDED_COLUMN, DROPPED_COLUMN

EVENTS = {
    "transaction_metadata": True,
    "schema_change_topic": True,
    "incremental_snapshot_batches": (0, 1, 2),
    "evolve_batch": 1,
}


@pytest.fixture(scope="module")
def results() -> dict[tuple[str, str, bool], SimResult]:
    return {
        (flavour, style, schemas): simulate(
            SimConfig(
                seed=31,
                flavour=flavour,
                schemas_enable=schemas,
                batches=3,
                transactions=80,
                snapshot_style=style,
                table_names={"order_lines": "order_items"},
                **EVENTS,  # type: ignore[arg-type]
            )
        )
        for flavour in FLAVOURS
        for style in ("string", "boolean")
        for schemas in (False, True)
    }


def _payload(text: str, schemas: bool) -> dict:
    doc = json.loads(text)
    return doc["payload"] if schemas else doc


def _columns(result: SimResult, table: str) -> dict[str, object]:
    """Every column the table ever had (base + added), by output name."""
    from workbench.simulator import TABLES

    columns = list(TABLES[table].columns)
    if table == ADDED_COLUMN[0]:
        columns.append(ADDED_COLUMN[1])
    upper = result.config.flavour != "sqlserver"
    return {(c.name.upper() if upper else c.name): c for c in columns}


def replay(result: SimResult, messages, shuffle_seed: int | None = None) -> dict:  # type: ignore[no-untyped-def]
    """State from messages ordered by (position, snapshot rank, arrival)."""
    cfg = result.config
    table_of = {topic: table for table, topic in result.topics.items()}
    events = []
    for arrival, m in enumerate(messages):
        if m.value is None or m.topic not in table_of:
            continue
        p = _payload(m.value, cfg.schemas_enable)
        snapshot = str(p["source"]["snapshot"]).lower() not in ("false", "")
        events.append((position_key(cfg.flavour, p["source"]), not snapshot, arrival, m.topic, p))
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(events)
        events = [(*e[:2], i, *e[3:]) for i, e in enumerate(events)]
    events.sort(key=lambda e: e[:3])
    state: dict = {t: {} for t in result.topics}
    for *_, topic, p in events:
        table = table_of[topic]
        columns = _columns(result, table)
        from workbench.simulator import TABLES

        key = TABLES[table].key
        if p["op"] == "t":
            state[table].clear()
            continue
        image = p["before"] if p["op"] == "d" else p["after"]
        row = {
            columns[name].name: decode_value(columns[name], cfg.flavour, value)
            for name, value in image.items()
        }
        if p["op"] == "d":
            del state[table][tuple(row[c] for c in key)]
        else:
            state[table][tuple(row[c] for c in key)] = row
    return state


def _as_source(state: dict, expected: dict) -> dict:
    """The replayed rows in the source's current columns: a column added after a row's last
    change reads as null, a dropped one is gone."""
    return {
        table: {
            key: {c: row.get(c) for c in expected[table].get(key, row)} for key, row in rows.items()
        }
        for table, rows in state.items()
    }


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_ordering_rule_reproduces_the_source(results, flavour: str) -> None:
    for (f, _, _), result in results.items():
        if f != flavour:
            continue
        for batch, expected in enumerate(result.expected):
            messages = [m for b in result.batches[: batch + 1] for m in b]
            assert _as_source(replay(result, messages), expected) == expected
        shuffled = replay(result, result.messages, shuffle_seed=5)
        assert _as_source(shuffled, result.expected[-1]) == result.expected[-1]


def test_incremental_reads_are_deduplicated_and_late(results) -> None:
    """Reads carry the row as read and the position of the read; a key a streamed change
    touches while its chunk window is open gets no read; some reads arrive after changes
    with higher positions."""
    late = 0
    for result in results.values():
        cfg = result.config
        table_of = {topic: table for table, topic in result.topics.items()}
        highest = None
        reads = 0
        for m in result.messages:
            if m.value is None or m.topic not in table_of:
                continue
            p = _payload(m.value, cfg.schemas_enable)
            position = position_key(cfg.flavour, p["source"])
            if p["source"]["snapshot"] == "incremental":
                reads += 1
                assert p["op"] == "r" and p["transaction"] is None
                late += highest is not None and position < highest
            elif p["op"] != "r":
                highest = position if highest is None else max(highest, position)
        chunks = [tx for batch in result.transactions for tx in batch if tx.incremental]
        assert reads == sum(len(tx.changes) for tx in chunks) > 0
    assert late > 0


def test_streamed_changes_in_a_window_discard_reads() -> None:
    """Guard: the deduplication really happens (the replay test proves the rows)."""
    from workbench.simulator import SourceDatabase

    config = SimConfig(seed=31, batches=3, transactions=80, incremental_snapshot_batches=(0, 1, 2))
    db = SourceDatabase(config)
    reads = 0
    for _ in range(config.batches):
        reads += sum(len(tx.changes) for tx in db.generate_batch() if tx.incremental)
    assert reads > 0 and db.incremental_reads_discarded > 0


def test_snapshot_forms(results) -> None:
    for (_, style, schemas), result in results.items():
        forms = set()
        for m in result.messages:
            if m.value is None or m.topic not in result.topics.values():
                continue
            p = _payload(m.value, schemas)
            forms.add((p["op"] == "r", json.dumps(p["source"]["snapshot"])))
        streaming = '"false"' if style == "string" else "false"
        initial = {'"true"', '"last"'} if style == "string" else {"true"}
        assert forms == {(True, '"incremental"'), (False, streaming)} | {(True, v) for v in initial}


def test_transaction_metadata(results) -> None:
    for result in results.values():
        cfg = result.config
        topic = f"{cfg.server}.transaction"
        boundaries = [
            _payload(m.value, cfg.schemas_enable) for m in result.messages if m.topic == topic
        ]
        ids = [result.transaction_ids[s] for s in sorted(result.transaction_ids)]
        # BEGIN of each transaction, preceded by the END of the previous one
        wanted = [("BEGIN", ids[0])]
        for prev, tx_id in zip(ids, ids[1:], strict=False):
            wanted += [("END", prev), ("BEGIN", tx_id)]
        assert [(b["status"], b["id"]) for b in boundaries] == wanted
        txs = {
            tx.seq: tx
            for batch in result.transactions
            for tx in batch
            if not (tx.snapshot or tx.ddl)
        }
        for b in boundaries:
            if b["status"] == "END":
                [seq] = [s for s, i in result.transaction_ids.items() if i == b["id"]]
                tables = [c.table for c in txs[seq].changes]
                assert b["event_count"] == len(tables)
                assert {d["data_collection"]: d["event_count"] for d in b["data_collections"]} == {
                    result.data_collections[t]: tables.count(t) for t in tables
                }


def test_schema_change_topic_and_evolution(results) -> None:
    for (flavour, _, schemas), result in results.items():
        cfg = result.config
        events = [_payload(m.value, schemas) for m in result.messages if m.topic == cfg.server]
        assert [e["tableChanges"][0]["type"] for e in events] == ["CREATE"] * 3 + ["ALTER"] * 2
        assert all((e["ddl"] is None) == (flavour == "sqlserver") for e in events)
        added, dropped = events[3]["tableChanges"][0], events[4]["tableChanges"][0]
        names = [c["name"].lower() for c in added["table"]["columns"]]
        assert names[-1] == ADDED_COLUMN[1].name
        assert DROPPED_COLUMN[1] not in [c["name"].lower() for c in dropped["table"]["columns"]]
        assert events[2]["tableChanges"][0]["id"].lower().endswith('"order_items"')
        assert [
            k.lower() for k in events[2]["tableChanges"][0]["table"]["primaryKeyColumnNames"]
        ] == ["order_id", "line_no"]
        final = result.expected[-1]
        assert all(ADDED_COLUMN[1].name in row for row in final[ADDED_COLUMN[0]].values())
        assert all(DROPPED_COLUMN[1] not in row for row in final[DROPPED_COLUMN[0]].values())


def test_defaults_emit_no_control_topics() -> None:
    result = simulate(SimConfig(seed=3, flavour="sqlserver", batches=2))
    assert set(m.topic for m in result.messages) == set(result.topics.values())
    assert result.transaction_ids == {}
