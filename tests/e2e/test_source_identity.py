"""A typed contract binds to its source identity, not to a table name (issue #14, item 3).

Three sources share one landing folder and one `dbt build`, each with an `orders` table:

* a simulated SQL Server inventory database (`IDENT_MSS.inventory.*`), the source the
  inventory contracts name (`cdc_source: {database: '*', schema: inventory, ...}`);
* the Debezium SQL Server tutorial's `testDB.dbo.customers` / `orders` (other columns,
  other keys), keyed by qualified `cdc_table_keys` entries (a name and a glob pattern);
* `shopdb.dbo.orders`, which nothing declares.

Value-only lines: every key comes from a declaration or the whole row. The unrelated tables
must never reach the typed models, gold or the quarantine (they stay in `captured_rows`),
the inventory contract's key must not key them, and the qualified var keys must not key
the inventory tables.
"""

from __future__ import annotations

import json

import pytest

from tests.corpus.captured_state import by_key, gold_rows
from workbench.oracle_check import compare_database
from workbench.simulator import TABLES, SimConfig, simulate, write_batch

pytestmark = pytest.mark.spark

INVENTORY = SimConfig(
    seed=31, flavour="sqlserver", database="IDENT_MSS", server="ident", batches=1, transactions=25
)
VARS = {
    "cdc_table_keys": {
        "TESTDB.dbo.orders": ["id"],
        "test?b.*.customers": ["ID"],
        # a Maxwell table whose Kafka key names another column: the declaration wins
        "mx_accounts": ["code"],
    }
}


def _maxwell(table: str, kind: str, data: dict[str, object], key: str, offset: int) -> str:
    """A kcat -J record of a Maxwell message (no primary_key_columns: the key is the Kafka
    key's, or a declaration's)."""
    value = {"database": "mxdb", "table": table, "type": kind, "ts": 1700000000 + offset}
    value |= {"xid": 900 + offset, "xoffset": 0, "commit": True, "data": data}
    return json.dumps(
        {"topic": "maxwell", "partition": 0, "offset": offset, "tstype": "create",
         "ts": 1700000000000 + offset, "key": key, "payload": json.dumps(value)}
    )  # fmt: skip


def _hash_key(table: str, key: int) -> str:
    return json.dumps({"database": "mxdb", "table": table, "pk.id": key})


def _array_key(table: str, key: int) -> str:
    """Maxwell's kafka_key_format=array: ["db", "table", [{"<column>": value}, ...]]."""
    return json.dumps(["mxdb", table, [{"ID": key}]])


MAXWELL = [
    _maxwell("mx_accounts", "insert", {"id": 1, "code": "A"}, _hash_key("mx_accounts", 1), 1),
    _maxwell("mx_accounts", "insert", {"id": 2, "code": "B"}, _hash_key("mx_accounts", 2), 2),
    _maxwell("mx_items", "insert", {"ID": 7, "name": "pen"}, _array_key("mx_items", 7), 3),
    _maxwell("mx_items", "update", {"ID": 7, "name": "ink"}, _array_key("mx_items", 7), 4),
    _maxwell("mx_items", "insert", {"ID": 8, "name": "cap"}, _array_key("mx_items", 8), 5),
]  # fmt: skip


def _message(db: str, table: str, op: str, before, after, serial: int) -> str:  # type: ignore[no-untyped-def]
    """A Debezium SQL Server change event without the schema wrapper (vendor doc shape)."""
    lsn = f"00000027:{serial:08x}"
    return json.dumps(
        {
            "before": before,
            "after": after,
            "source": {
                "version": "1.7.2.Final",
                "connector": "sqlserver",
                "name": "tutorial",
                "ts_ms": 1559729468000 + serial,
                "snapshot": False,
                "db": db,
                "schema": "dbo",
                "table": table,
                "change_lsn": f"{lsn}:0002",
                "commit_lsn": f"{lsn}:0007",
                "event_serial_no": 1,
            },
            "op": op,
            "ts_ms": 1559729470000 + serial,
        }
    )


SALLY = {"id": 1001, "first_name": "Sally", "last_name": "Thomas", "email": "sally@acme.com"}
GEORGE = {"id": 1002, "first_name": "George", "last_name": "Bailey", "email": "gbailey@acme.com"}
ORDER = {"id": 10001, "order_date": 16816, "purchaser": 1001, "quantity": 1, "product_id": 102}
ORDER2 = {**ORDER, "id": 10002, "quantity": 2}
ORDER3 = {**ORDER, "id": 10003, "purchaser": 1002}
UNRELATED = [
    _message("testDB", "customers", "c", None, SALLY, 1),
    _message("testDB", "customers", "c", None, GEORGE, 2),
    _message("testDB", "orders", "c", None, ORDER, 3),
    _message("testDB", "orders", "c", None, ORDER2, 4),
    _message("testDB", "orders", "c", None, ORDER3, 5),
    _message("testDB", "customers", "u", SALLY, {**SALLY, "email": "s@acme.com"}, 6),
    _message("testDB", "orders", "u", ORDER2, {**ORDER2, "quantity": 5}, 7),
    _message("testDB", "orders", "d", ORDER3, None, 8),
    _message("testDB", "customers", "d", GEORGE, None, 9),
    _message("shopdb", "orders", "c", None, {"id": 1, "item": "pen"}, 10),
    _message("shopdb", "orders", "c", None, {"id": 2, "item": "ink"}, 11),
]


EXPECTED = {
    "testdb.dbo.customers": [{**SALLY, "email": "s@acme.com"}],
    "testdb.dbo.orders": [ORDER, {**ORDER2, "quantity": 5}],
}


@pytest.fixture(scope="module")
def built(dbt_project):  # type: ignore[no-untyped-def]
    result = simulate(INVENTORY)
    write_batch(result.batches[0], dbt_project.landing / INVENTORY.database, 0, "value_lines")
    (dbt_project.landing / "tutorial.json").write_text("\n".join(UNRELATED) + "\n")
    (dbt_project.landing / "maxwell.json").write_text("\n".join(MAXWELL) + "\n")
    dbt_project.run("build", vars=VARS)
    return result


def test_the_inventory_source_is_typed_and_keyed_by_its_contract(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    """Keys from the contract (value-only lines), not from the qualified var entries."""
    outcome = compare_database(
        dbt_project.spark,
        dbt_project.layer("gold"),
        INVENTORY.database,
        built.expected[0],
        result=built,
        batch=0,
        # captured_rows also holds the unrelated sources' tables (checked below)
        databases=[INVENTORY.database, "testDB", "shopdb", "mxdb"],
    )
    assert outcome.ok, outcome.differences
    assert sum(outcome.rows.values()) > 0


def test_unrelated_tables_of_the_same_name_never_reach_typed_models(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    silver, gold = dbt_project.layer("silver"), dbt_project.layer("gold")
    for table in TABLES:
        ids = {f"ident_mss.inventory.{table}"}
        rows = dbt_project.sql(
            f"select distinct _cdc_source_id from {silver}.stg_inventory__{table}"
        )
        assert {r["_cdc_source_id"] for r in rows} == ids
        # gold holds the live rows only (a truncated table may hold none)
        rows = dbt_project.sql(f"select distinct _cdc_source_id from {gold}.{table}")
        assert {r["_cdc_source_id"] for r in rows} <= ids
    # nor their quarantine: nothing at all is rejected (before, testDB.dbo.orders rows
    # were `missing_key` in stg_inventory__orders)
    assert dbt_project.sql(f"select * from {silver}.cdc_quarantine") == []


def test_unrelated_tables_stay_in_captured_rows_keyed_by_their_own_declaration(
    dbt_project, built
) -> None:  # type: ignore[no-untyped-def]
    for table, rows in EXPECTED.items():
        assert by_key(gold_rows(dbt_project, table), ["id"]) == by_key(rows, ["id"]), table
        keys = dbt_project.sql(
            f"select _cdc_key from {dbt_project.layer('gold')}.captured_rows "
            f"where _cdc_source_id = '{table}'"
        )
        assert sorted(json.loads(k["_cdc_key"])["id"] for k in keys) == sorted(
            str(row["id"]) for row in rows
        )


def test_a_contract_key_does_not_key_another_source(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    """shopdb.dbo.orders has no declaration: the inventory contract's `order_id` does not
    apply to it, so each row is keyed by its whole image."""
    rows = dbt_project.sql(
        f"select _cdc_key from {dbt_project.layer('silver')}.int_cdc__change_log "
        "where _cdc_source_id = 'shopdb.dbo.orders'"
    )
    assert sorted(json.loads(r["_cdc_key"])["id"] for r in rows) == ["1", "2"]
    assert all(set(json.loads(r["_cdc_key"])) == {"id", "item"} for r in rows)


def _captured(dbt_project, table: str) -> list[tuple[dict[str, object], dict[str, object]]]:  # type: ignore[no-untyped-def]
    rows = dbt_project.sql(
        f"select _cdc_key, _cdc_row_json from {dbt_project.layer('gold')}.captured_rows "
        f"where _cdc_source_table = '{table}'"
    )
    return sorted(
        ((json.loads(str(r["_cdc_key"])), json.loads(str(r["_cdc_row_json"]))) for r in rows),
        key=lambda pair: json.dumps(pair[0], sort_keys=True),
    )


def test_a_declared_key_wins_over_maxwells_kafka_key(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    """The README's rule for every family: a key declared in cdc_table_keys wins over the
    message's own, Maxwell's Kafka key included."""
    assert [key for key, _ in _captured(dbt_project, "mx_accounts")] == [
        {"code": "A"},
        {"code": "B"},
    ]


def test_maxwell_array_format_kafka_keys_are_read(dbt_project, built) -> None:  # type: ignore[no-untyped-def]
    """kafka_key_format=array keys (`["db", "table", [{"ID": 7}]]`) key the row: the update
    of ID 7 replaces its insert."""
    captured = _captured(dbt_project, "mx_items")
    assert [key for key, _ in captured] == [{"id": "7"}, {"id": "8"}], captured
    assert captured[0][1]["name"] == "ink", captured
