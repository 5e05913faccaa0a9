"""Transaction-consistent gold, opt-in per source (issue #18, item 1).

A simulated SQL Server source with transaction metadata (`TXN_MSS`, listed in
`cdc_transaction_consistent_sources`) lands in two batches that split its transactions:

* T, the last transaction of the first batch, spans the three tables; its END arrives in
  the first batch but one of its events only in the second (the counts do not match);
* T2, the one before it, also spans the three tables; all its events arrive in the first
  batch, its END never (lost): the wait limit `cdc_transaction_wait_max_hours` releases it
  on the first load after the limit, the second;
* U, the last transaction of the second batch, never gets an END (Debezium writes it when
  the next transaction begins): it is released by hand (`cdc_transaction_release`).

After the first build gold must hold the source state before T2 (none of T2 or T, every
transaction before them), and `int_cdc__pending_transactions` say what is missing; after
the second, the source state after the second batch. `cdc_delivery_gaps` lists T as a
transaction missing an event while it does (its missing event is the last of its topic in
the first batch: no offset gap shows it), and the offset T2's lost END leaves in the
transaction topic, for good. A second source (`FREE_MSS`, not
listed) landed whole in the same builds keeps today's behaviour: gold follows every batch.
It is the same simulation under another name, so its transactions have the same ids: a
transaction belongs to the source whose tables its events and END name.

The two sources are this module's part of the shared stream (tests/e2e/stream.py): their
files land under `transactions/` at the stream's `batch0` and `batch1`, and the part's vars
(`Part.vars`) gate `txn_*` in every build of the stream. No other part's database matches,
so every other part is also a check that gating one source leaves the others as they were.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from tests.conftest import DbtProject
from tests.e2e.stream import BATCHES, Part, register, stream_databases
from workbench.oracle_check import GoldReader, compare_database
from workbench.simulator import SimConfig, SimResult, simulate, write_batch
from workbench.simulator.debezium import Message

pytestmark = pytest.mark.spark

GATED = SimConfig(
    seed=7,
    flavour="sqlserver",
    database="TXN_MSS",
    server="txn",
    batches=2,
    transactions=8,
    transaction_metadata=True,
    truncate_probability=0.0,  # no forced truncate: the first 6 transactions replay alone
    initial_rows={"customers": 6, "orders": 6, "order_lines": 6},
)
FREE = replace(GATED, database="FREE_MSS", server="free")
WAIT = {"cdc_transaction_consistent_sources": ["txn_*"], "cdc_transaction_wait_max_hours": 0.0001}


def _value(message: Message) -> dict[str, object]:
    return json.loads(message.value) if message.value else {}


def _end_of(messages: list[Message], transaction_id: str) -> Message:
    (end,) = [
        m for m in messages
        if m.topic.endswith(".transaction")
        and _value(m).get("status") == "END" and _value(m).get("id") == transaction_id
    ]  # fmt: skip
    return end


def _events_of(messages: list[Message], transaction_id: str) -> list[Message]:
    return [
        m for m in messages
        if isinstance(_value(m).get("transaction"), dict)
        and _value(m)["transaction"]["id"] == transaction_id  # type: ignore[index]
    ]  # fmt: skip


@dataclass(frozen=True)
class Plan:
    """The gated source's simulation, the transactions the test is about, and what lands."""

    result: SimResult
    before: SimResult  # the source before T2
    free: SimResult
    t_id: str
    t2_id: str
    u_id: str
    landed: tuple[list[Message], list[Message]]  # the gated source's two batches


@functools.cache
def _plan() -> Plan:
    result = simulate(GATED)
    before = simulate(replace(GATED, transactions=6, batches=1))
    assert result.batches[0][: len(before.batches[0])] == before.batches[0]
    first, second = result.batches
    t2_id, t_id = result.transaction_ids[7], result.transaction_ids[8]
    t_events, t2_events = _events_of(first, t_id), _events_of(first, t2_id)
    assert len({m.topic for m in t_events[:-1]}) == 3 and len({m.topic for m in t2_events}) == 3
    late = t_events[-1]  # an update of orders: no tombstone follows it
    assert _value(late)["op"] == "u"
    t_end, t2_end = _end_of(second, t_id), _end_of(first, t2_id)
    landed = (
        [m for m in first if m not in (late, t2_end)] + [t_end],
        [m for m in second if m != t_end] + [late],
    )
    return Plan(result, before, simulate(FREE), t_id, t2_id, result.transaction_ids[16], landed)


def _land(step: str, folder: Path) -> None:
    if step in BATCHES:
        batch, plan = BATCHES[step], _plan()
        write_batch(plan.landed[batch], folder / GATED.database, batch, "kcat")
        write_batch(plan.free.batches[batch], folder / FREE.database, batch, "kcat")


register(
    Part(
        "transactions",
        land=_land,
        databases=(GATED.database, FREE.database),
        # U never gets an END: released by hand (the var is inert until U lands, at batch1)
        vars={**WAIT, "cdc_transaction_release": [_plan().u_id]},
    )
)


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


def _compare(  # type: ignore[no-untyped-def]
    dbt_project, result: SimResult, expected, batch: int, reader: GoldReader
) -> None:
    outcome = compare_database(
        dbt_project.spark,
        dbt_project.layer("gold"),
        result.config.database,
        expected,
        result=result,
        batch=batch,
        databases=stream_databases(),
        reader=reader,
    )
    assert sum(outcome.rows.values()) > 0
    assert outcome.ok, f"{result.config.database}: " + "\n  ".join(outcome.differences)


def _pending(dbt_project) -> dict[str, dict[str, object]]:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        f"select * from {dbt_project.layer('silver')}.int_cdc__pending_transactions"
    )
    return {str(row["transaction_id"]): row for row in rows}


def _collections(row: dict[str, object]) -> dict[str, tuple[object, object]]:
    return {
        c["data_collection"]: (c["events_expected"], c["events_seen"])
        for c in json.loads(str(row["data_collections"]))
    }


@pytest.mark.stream("batch0")
def test_gold_applies_a_transaction_only_once_it_is_complete(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """After the first batch: none of T2 (no END) and T (an event missing), every
    transaction before them; the source that is not listed is applied as it comes."""
    plan = _plan()
    reader = GoldReader(dbt_project.spark)
    _compare(dbt_project, plan.before, plan.before.expected[0], 0, reader)  # none of T2 and T
    _compare(dbt_project, plan.free, plan.free.expected[0], 0, reader)  # not listed
    pending = _pending(dbt_project)
    assert set(pending) == {plan.t_id, plan.t2_id}
    t, t2 = pending[plan.t_id], pending[plan.t2_id]
    assert (t2["transaction_state"], t2["end_seen"], t2["events_seen"]) == ("waiting", False, 5)
    assert t2["events_expected"] is None and t2["released_at"] is None
    assert (t["transaction_state"], t["end_seen"]) == ("waiting", True)
    assert (t["events_expected"], t["events_seen"]) == (5, 4)
    assert _collections(t) == {
        "txn_mss.inventory.orders": (2, 1),
        "txn_mss.inventory.customers": (2, 2),
        "txn_mss.inventory.order_lines": (1, 1),
    }


@pytest.mark.stream("batch1")
def test_the_late_event_the_wait_limit_and_a_release_complete_the_rest(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """After the second batch: T completed by its late event, T2 released by the wait
    limit on this load, U released by hand; gold is the source after the second batch,
    and each released change reached the typed change logs once."""
    plan = _plan()
    reader = GoldReader(dbt_project.spark)
    _compare(dbt_project, plan.result, plan.result.expected[1], 1, reader)
    _compare(dbt_project, plan.free, plan.free.expected[1], 1, reader)
    bronze = f"{dbt_project.layer('bronze')}.bronze_cdc_messages"
    (newest,) = dbt_project.sql(f"select max(_loaded_at) as loaded_at from {bronze}")
    pending = _pending(dbt_project)
    assert set(pending) == {plan.t2_id, plan.u_id}  # T completed
    assert (pending[plan.t2_id]["transaction_state"], pending[plan.t2_id]["released_at"]) == (
        "timed_out",
        newest["loaded_at"],
    )
    assert (pending[plan.u_id]["transaction_state"], pending[plan.u_id]["end_seen"]) == (
        "released",
        False,
    )
    for table in ("customers", "orders", "order_lines"):
        (counts,) = dbt_project.sql(
            "select count(*) as copies, count(distinct _kafka_topic, _kafka_offset) as events "
            f"from {dbt_project.layer('silver')}.stg_inventory__{table} "
            f"where _cdc_source_db = '{GATED.database}'"
        )
        assert counts["copies"] == counts["events"], table


def _delivery_gaps(dbt_project) -> list[tuple[object, ...]]:  # type: ignore[no-untyped-def]
    """The part's rows of cdc_delivery_gaps (its topics, its source databases)."""
    rows = dbt_project.sql(
        "select gap_kind, _kafka_topic, first_missing_offset, last_missing_offset, "
        "transaction_id, source_db, transaction_state, events_expected, events_seen, "
        "missing_count "
        f"from {dbt_project.layer('silver')}.cdc_delivery_gaps "
        f"where split_part(_kafka_topic, '.', 1) in ('{GATED.server}', '{FREE.server}') "
        f"or source_db in ('{GATED.database.lower()}', '{FREE.database.lower()}')"
    )
    return sorted((tuple(row.values()) for row in rows), key=repr)


def _lost_end_gap() -> tuple[object, ...]:
    plan = _plan()
    end = _end_of(plan.result.batches[0], plan.t2_id)
    return ("kafka_offsets", end.topic, end.offset, end.offset, *[None] * 5, 1)


@pytest.mark.stream("batch0")
def test_delivery_gaps_list_the_lost_end_and_the_incomplete_transaction(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """After the first batch: T, whose END counts 5 events and 4 arrived, and the offset of
    T2's lost END in the transaction topic; nothing of the source landed whole."""
    plan = _plan()
    t_gap = ("transaction_events", None, None, None, plan.t_id, "txn_mss", "waiting", 5, 4, 1)
    assert _delivery_gaps(dbt_project) == sorted([_lost_end_gap(), t_gap], key=repr)


@pytest.mark.stream("batch1")
def test_delivery_gaps_drop_a_transaction_its_late_event_completed(dbt_project) -> None:  # type: ignore[no-untyped-def]
    """After the second batch: T is complete; T2's END stays lost (U has no END yet)."""
    assert _delivery_gaps(dbt_project) == [_lost_end_gap()]
