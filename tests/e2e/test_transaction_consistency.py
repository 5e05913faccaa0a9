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
the second, the source state after the second batch. A second source (`FREE_MSS`, not
listed) landed whole in the same builds keeps today's behaviour: gold follows every batch.
It is the same simulation under another name, so its transactions have the same ids: a
transaction belongs to the source whose tables its events and END name.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from cdc_tools.oracle_check import compare_database
from cdc_tools.simulator import SimConfig, SimResult, simulate, write_batch
from cdc_tools.simulator.debezium import Message

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


def _compare(dbt_project, result: SimResult, expected, batch: int) -> None:  # type: ignore[no-untyped-def]
    outcome = compare_database(
        dbt_project.spark,
        dbt_project.layer("gold"),
        result.config.database,
        expected,
        result=result,
        batch=batch,
        databases=[GATED.database, FREE.database],
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


def test_gold_applies_a_transaction_only_once_it_is_complete(dbt_project) -> None:  # type: ignore[no-untyped-def]
    result = simulate(GATED)
    before = simulate(replace(GATED, transactions=6, batches=1))  # the source before T2
    assert result.batches[0][: len(before.batches[0])] == before.batches[0]
    first, second = result.batches
    t2_id, t_id = result.transaction_ids[7], result.transaction_ids[8]
    u_id = result.transaction_ids[16]
    t_events, t2_events = _events_of(first, t_id), _events_of(first, t2_id)
    assert len({m.topic for m in t_events[:-1]}) == 3 and len({m.topic for m in t2_events}) == 3
    late = t_events[-1]  # an update of orders: no tombstone follows it
    assert _value(late)["op"] == "u"
    t_end, t2_end = _end_of(second, t_id), _end_of(first, t2_id)
    landing = dbt_project.landing / GATED.database
    write_batch([m for m in first if m not in (late, t2_end)] + [t_end], landing, 0, "kcat")
    free = simulate(FREE)
    write_batch(free.batches[0], dbt_project.landing / FREE.database, 0, "kcat")

    dbt_project.run("build", vars=WAIT)
    _compare(dbt_project, before, before.expected[0], 0)  # none of T2 and T
    _compare(dbt_project, free, free.expected[0], 0)  # not listed: applied as it comes
    pending = _pending(dbt_project)
    assert set(pending) == {t_id, t2_id}
    t, t2 = pending[t_id], pending[t2_id]
    assert (t2["transaction_state"], t2["end_seen"], t2["events_seen"]) == ("waiting", False, 5)
    assert t2["events_expected"] is None and t2["released_at"] is None
    assert (t["transaction_state"], t["end_seen"]) == ("waiting", True)
    assert (t["events_expected"], t["events_seen"]) == (5, 4)
    assert _collections(t) == {
        "txn_mss.inventory.orders": (2, 1),
        "txn_mss.inventory.customers": (2, 2),
        "txn_mss.inventory.order_lines": (1, 1),
    }

    write_batch([m for m in second if m != t_end] + [late], landing, 1, "kcat")
    write_batch(free.batches[1], dbt_project.landing / FREE.database, 1, "kcat")
    dbt_project.run("build", vars={**WAIT, "cdc_transaction_release": [u_id]})
    _compare(dbt_project, result, result.expected[1], 1)
    _compare(dbt_project, free, free.expected[1], 1)
    bronze = f"{dbt_project.layer('bronze')}.bronze_cdc_messages"
    (newest,) = dbt_project.sql(f"select max(_loaded_at) as loaded_at from {bronze}")
    pending = _pending(dbt_project)
    assert set(pending) == {t2_id, u_id}  # T completed
    assert (pending[t2_id]["transaction_state"], pending[t2_id]["released_at"]) == (
        "timed_out",
        newest["loaded_at"],
    )
    assert (pending[u_id]["transaction_state"], pending[u_id]["end_seen"]) == ("released", False)
    # released changes reach the typed change logs once each
    for table in ("customers", "orders", "order_lines"):
        (counts,) = dbt_project.sql(
            "select count(*) as copies, count(distinct _kafka_topic, _kafka_offset) as events "
            f"from {dbt_project.layer('silver')}.stg_inventory__{table} "
            f"where _cdc_source_db = '{GATED.database}'"
        )
        assert counts["copies"] == counts["events"], table
