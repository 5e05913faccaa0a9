"""Snapshot reconciliation (issue #18, item 2): rows deleted at the source while capture
was down leave gold when a completed blocking snapshot did not read them.

Two simulated databases share one landing folder. Between their two batches capture is
down: the source deletes rows of every table (never captured), then a new blocking
snapshot re-reads every table and streaming resumes. `RESNAP_MSS`'s snapshot completes
(its last read, of `order_lines`, is marked `last`); `RESNAP_ORA`'s stops a third before
its end and never sends `last`. In a copy of the project, gold `customers` (hard deletes,
delta path) and `orders` (soft deletes, compaction path) set
`cdc_snapshot_reconciliation='delete'`; `order_lines` leaves it off. The copy sets
`cdc_snapshots_enabled`, without which `int_cdc__snapshots` is not built (the var
`cdc_snapshot_reconciliation` is off).

After the second batch: the reconciled tables of `RESNAP_MSS` equal the source (their
snapshot is completed by the `last` read of another table); `order_lines` keeps the rows
deleted while capture was down, as it always did; nothing of `RESNAP_ORA` is deleted (its
snapshot is incomplete). A `--full-refresh` of the reconciled models (the rebuild path)
gives the same.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench.oracle_check import gold_state
from workbench.simulator import TABLES, SimConfig, SimResult, simulate, write_batch
from workbench.simulator.expected import State, consumer_state

pytestmark = pytest.mark.spark

COMPLETE = SimConfig(
    seed=181, flavour="sqlserver", database="RESNAP_MSS", server="resnap1",
    batches=2, transactions=20, resnapshot_batch=1, truncate_probability=0.0,
)  # fmt: skip
INCOMPLETE = SimConfig(
    seed=182, flavour="oracle", database="RESNAP_ORA", server="resnap2",
    batches=2, transactions=20, resnapshot_batch=1, resnapshot_complete=False,
)  # fmt: skip
RECONCILED = {"customers": "cdc_compaction_ratio=100", "orders": "cdc_compaction_ratio=0"}


@pytest.fixture(scope="module")
def simulations() -> list[SimResult]:
    return [simulate(COMPLETE), simulate(INCOMPLETE)]


@pytest.fixture(scope="module")
def project(dbt_project, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """A copy of the project whose customers and orders reconcile snapshots."""
    project = dbt_project.copy_project(tmp_path_factory.mktemp("snap") / "project")
    # the models opt in one by one: the view they read is built on request
    settings = project / "dbt_project.yml"
    enabled = "\nvars:\n  cdc_snapshots_enabled: true\n"
    text, count = re.subn(r"\nvars:\n", enabled, settings.read_text())
    assert count == 1
    settings.write_text(text)
    for table, options in RECONCILED.items():
        model = project / "models" / "gold" / "inventory" / f"{table}.sql"
        sql, count = re.subn(
            r"\n(\s+)materialized='cdc_current_state',\n",
            "\n\\1materialized='cdc_current_state',\n"
            f"\\1cdc_snapshot_reconciliation='delete',\n\\1{options},\n",
            model.read_text(),
        )
        assert count == 1
        model.write_text("-- depends_on: {{ ref('int_cdc__snapshots') }}\n" + sql)
    return project


def _uncaptured(result: SimResult) -> State:
    """The rows the source deleted while capture was down, as a consumer decodes them."""
    [resnapshot] = [tx for tx in result.transactions[1] if tx.uncaptured]
    rows: State = {table: {} for table in TABLES}
    for change in resnapshot.uncaptured:
        assert change.before is not None
        key = tuple(change.before[c] for c in TABLES[change.table].key)
        rows[change.table][key] = change.before
    return consumer_state(rows, result.config)


def _differences(dbt_project, result: SimResult, table: str, wanted: dict) -> list[str]:  # type: ignore[no-untyped-def]
    actual = gold_state(dbt_project.spark, dbt_project.layer("gold"), table, result.config.database)
    database = result.config.database
    out = [f"{database}.{table} {k}: missing from gold" for k in wanted.keys() - actual.keys()]
    out += [f"{database}.{table} {k}: in gold, not expected" for k in actual.keys() - wanted.keys()]
    out += [
        f"{database}.{table} {k}.{column}: gold {actual[k][column]!r}, expected {value!r}"
        for k in wanted.keys() & actual.keys()
        for column, value in wanted[k].items()
        if actual[k][column] != value
    ]
    return out


def _assert_gold(dbt_project, simulations: list[SimResult]) -> None:  # type: ignore[no-untyped-def]
    complete, incomplete = simulations
    failures: list[str] = []
    for table in TABLES:
        lingering = _uncaptured(complete)[table]
        assert lingering, f"the simulation deleted no {table} while capture was down"
        wanted = dict(complete.expected[1][table])
        if table not in RECONCILED:
            wanted |= lingering  # off: the rows deleted while capture was down stay
        failures += _differences(dbt_project, complete, table, wanted)
        # an incomplete snapshot deletes nothing
        wanted = incomplete.expected[1][table] | _uncaptured(incomplete)[table]
        failures += _differences(dbt_project, incomplete, table, wanted)
    assert not failures, "\n".join(failures)


def test_a_complete_snapshot_drops_what_it_did_not_read(dbt_project, simulations, project) -> None:  # type: ignore[no-untyped-def]
    for batch in (0, 1):
        for result in simulations:
            write_batch(result.batches[batch], dbt_project.landing / result.config.database, batch)
        dbt_project.run(
            "build", "--select", *(f"+{t}" for t in TABLES), "--indirect-selection", "cautious",
            project_dir=project,
        )  # fmt: skip
    _assert_gold(dbt_project, simulations)
    # soft deletes (orders) flag the reconciled rows, as cdc_delete_mode does
    gold = dbt_project.layer("gold")
    gone = _uncaptured(simulations[0])["orders"]
    rows = dbt_project.sql(
        f"select order_id, _cdc_is_deleted from {gold}.orders "
        f"where _cdc_source_db = '{COMPLETE.database}'"
    )
    flagged = {(r["order_id"],) for r in rows if r["_cdc_is_deleted"]}
    assert set(gone) <= flagged


def test_the_snapshot_list_tells_complete_from_incomplete(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        f"select lower(_cdc_source_db) as db, _cdc_source_id, snapshot_position, read_rows, "
        f"is_complete, reconciles_before from {dbt_project.layer('silver')}.int_cdc__snapshots "
        "where snapshot_kind = 'blocking'"
    )
    for result in simulations:
        initial, resnapshot = [tx for txs in result.transactions for tx in txs if tx.snapshot]
        mine = [r for r in rows if r["db"] == result.config.database.lower()]
        # the initial snapshot and the re-snapshot of each table they read
        tables = [{c.table for c in tx.changes} for tx in (initial, resnapshot)]
        assert len(mine) == sum(len(t) for t in tables), mine
        latest: dict[str, dict] = {}
        for row in mine:
            table = str(row["_cdc_source_id"]).split(".")[-1]
            if table not in latest or row["snapshot_position"] > latest[table]["snapshot_position"]:
                latest[table] = row
        assert set(latest) == tables[0]
        for table in tables[1]:
            row = latest[table]
            reads = sum(1 for c in resnapshot.changes if c.table == table)
            assert row["read_rows"] == reads, (table, row)
            assert row["is_complete"] is result.config.resnapshot_complete, row
            if row["is_complete"]:
                assert row["reconciles_before"] == f"{row['snapshot_position']} 0"


def test_a_rebuild_reconciles_the_same(dbt_project, simulations, project) -> None:  # type: ignore[no-untyped-def]
    dbt_project.run("run", "--full-refresh", "--select", *RECONCILED, project_dir=project)
    _assert_gold(dbt_project, simulations)
