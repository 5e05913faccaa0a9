"""Suites derived from the dbt manifest: a scaffolded table gets its suite with no Python edit.

A copy of the project gets a table from `cdc_tools.scaffold` (a contract with a value set
and a range in its column meta), `dbt parse` runs on it in this process, and the suites
derived from that manifest must hold the new silver and gold models with their contract's
columns, types, key and bounds, and must leave out what the scaffolded dbt tests check.
No Spark session is needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cdc_tools.dbt_invoke import run_dbt
from cdc_tools.quality_suites import (
    TableSuite,
    load_manifest,
    model_specs,
    of_type,
    suites_from_manifest,
)
from cdc_tools.scaffold import contract_from_spec, write_table
from workbench.consumer import copy_project

SPEC = {
    "system": "crm",
    "table": "ACCOUNTS",
    "key": ["id"],
    "source": {"database": "CRM", "schema": "dbo"},
    "columns": [
        {"name": "id", "data_type": "bigint"},
        {"name": "owner", "data_type": "string"},
        {"name": "balance", "data_type": "decimal(12,2)", "meta": {"cdc_min_value": 0}},
        {
            "name": "tier",
            "data_type": "string",
            "meta": {"cdc_accepted_values": ["gold", "silver", "bronze"]},
        },
        {"name": "opened_at", "data_type": "timestamp", "encoding": "io.debezium.time.Timestamp"},
    ],
}


@pytest.fixture(scope="module")
def scaffolded_suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, TableSuite]:
    base = tmp_path_factory.mktemp("scaffolded")
    project = copy_project(base / "project")
    write_table(contract_from_spec(SPEC), project)
    run_dbt(["parse"], project_dir=project, target_path=base / "target")
    suites = suites_from_manifest(load_manifest(base / "target" / "manifest.json"))
    return {suite.key: suite for suite in suites}


def _described(suite: TableSuite) -> set[tuple[str, tuple[str, ...], str]]:
    return {
        (check.expectation.__name__, check.columns, repr(check.when) if check.when else "")
        for check in suite.checks
    }


def test_the_scaffolded_table_gets_silver_and_gold_suites(
    scaffolded_suites: dict[str, TableSuite],
) -> None:
    assert "silver.stg_crm__accounts" in scaffolded_suites
    assert "gold.accounts" in scaffolded_suites
    for key in ("silver.stg_crm__accounts", "gold.accounts"):
        suite = scaffolded_suites[key]
        types = {
            check.columns[0]: check.kwargs["type_"]
            for check in suite.checks
            if check.expectation.__name__ == "ExpectColumnValuesToBeOfType"
        }
        assert types == {
            "id": "LongType",
            "owner": "StringType",
            "balance": "DecimalType",
            "tier": "StringType",
            "opened_at": "TimestampType",
        }, key
        described = _described(suite)
        assert ("ExpectColumnValuesToBeBetween", ("balance",), "") in described, key
        [value_set] = [
            c
            for c in suite.checks
            if c.expectation.__name__ == "ExpectColumnValuesToBeInSet" and c.columns == ("tier",)
        ]
        assert value_set.kwargs["value_set"] == ["gold", "silver", "bronze"]


def test_the_typed_log_suite_holds_the_contract_key(
    scaffolded_suites: dict[str, TableSuite],
) -> None:
    silver = scaffolded_suites["silver.stg_crm__accounts"]
    key_checks = [
        c
        for c in silver.checks
        if c.expectation.__name__ == "ExpectColumnValuesToNotBeNull" and c.columns == ("id",)
    ]
    assert len(key_checks) == 1
    assert repr(key_checks[0].when) == "(_cdc_op != t AND _cdc_error_reason IS NULL)"
    assert ("ExpectColumnValuesToBeInSet", ("_cdc_op",), "") in _described(silver)
    assert silver.row_id[0] == "_message_id"


def test_gold_leaves_what_the_scaffolded_dbt_tests_check_to_dbt(
    scaffolded_suites: dict[str, TableSuite],
) -> None:
    gold = scaffolded_suites["gold.accounts"]
    # the scaffolder declares cdc_column_checks' not_null on the key and cdc_unique_key on
    # (source, key)
    assert set(gold.dropped) == {
        "ExpectCompoundColumnsToBeUnique(_cdc_source_id, id)",
        "ExpectColumnValuesToNotBeNull(id)",
    }
    described = _described(gold)
    assert ("ExpectColumnValuesToNotBeNull", ("id",), "") not in described
    assert ("ExpectColumnValuesToNotBeNull", ("_cdc_source_id",), "") in described
    assert gold.row_id == ("_cdc_source_id", "_cdc_key")


def test_each_check_of_a_column_checks_test_counts_as_its_separate_dbt_test() -> None:
    """A `cdc_column_checks` test stands for a `not_null` per column and an
    `accepted_values` per column; an item with its own `where` checks some rows only."""
    column_checks = {
        "resource_type": "test",
        "attached_node": "model.p.orders",
        "test_metadata": {
            "name": "cdc_column_checks",
            "kwargs": {
                "model": "{{ get_where_subquery(ref('orders')) }}",
                "not_null": ["id", {"column": "note", "where": "kind = 'x'"}, {"column": "at"}],
                "accepted_values": {
                    "status": ["NEW", "PAID"],
                    "kind": {"values": ["x"], "where": "id > 0"},
                },
            },
        },
    }
    model = {
        "resource_type": "model",
        "fqn": ["p", "gold", "orders"],
        "name": "orders",
        "config": {"materialized": "table"},
        "columns": {},
    }
    manifest = {"nodes": {"model.p.orders": model, "test.p.checks": column_checks}}
    [spec] = model_specs(manifest)
    assert spec.dbt_tests == {
        ("not_null", ("id",)),
        ("not_null", ("at",)),
        ("accepted_values", ("status",)),
    }


@pytest.mark.parametrize(
    ("data_type", "expected"),
    [
        ("bigint", "LongType"),
        ("int", "IntegerType"),
        ("smallint", "ShortType"),
        ("decimal(12,2)", "DecimalType"),
        ("DATE", "DateType"),
        ("timestamp", "TimestampType"),
        ("map<string,string>", None),
    ],
)
def test_contract_types_map_to_spark_types(data_type: str, expected: str | None) -> None:
    check = of_type("c", data_type)
    assert (check.kwargs["type_"] if check else None) == expected


def test_load_suites_parses_the_project_when_asked(tmp_path: Path) -> None:
    from cdc_tools.quality import load_suites

    manifest = tmp_path / "target" / "manifest.json"
    with pytest.raises(FileNotFoundError):
        load_suites(manifest, parse=False)
    keys = {suite.key for suite in load_suites(manifest)}
    assert manifest.is_file()
    expected = {"bronze.bronze_cdc_messages", "silver.stg_inventory__customers", "gold.customers"}
    assert expected <= keys
    assert "gold.accounts" not in keys  # the repo's own project has no scaffolded accounts
