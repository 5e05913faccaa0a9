"""Tests of the Great Expectations suites (cdc_tools.quality), derived from the manifest.

Tests of the tests: small tables with known defects are written under a throwaway schema
prefix (one Spark job per table; columns of the contract a test table leaves out are added
as nulls) and validated once with the suites `dbt parse` gives; every kind of expectation
must fail with a message naming the table, the expectation and the offending value, defects
a dbt data test already catches must not be checked twice, and clean copies of the same
tables must pass. Then the real pipeline must pass every suite and get Data Docs: the
shared stream's warehouse (tests/e2e/stream.py), so this module runs on the stream's worker.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from cdc_tools.quality import QualityReport, TableSuite, run_quality
from cdc_tools.quality_suites import load_manifest, model_specs, suites_from_manifest

pytestmark = pytest.mark.spark

BAD = "t_gxbad"
GOOD = "t_gxgood"
LOADED = dt.datetime(2024, 1, 1, 12, 0, 0)

BRONZE_SCHEMA = (
    "_message_id string, raw_line string, _record_format string, "
    "_source_file string, _source_line int, _loaded_at timestamp"
)
MESSAGES_SCHEMA = (
    "_message_id string, _cdc_message_kind string, _cdc_error_reason string, "
    "_cdc_op string, _cdc_position string"
)
TYPED_SCHEMA = (
    "_message_id string, _cdc_source_id string, _cdc_op string, _cdc_position string, "
    "_cdc_error_reason string, id int"
)
GOLD_SCHEMA = "_cdc_source_id string, _cdc_key string, id int, _cdc_op string"
SOFT_DELETE_SCHEMA = (
    "_cdc_source_id string, _cdc_key string, order_id bigint, _cdc_op string, "
    "_cdc_is_deleted boolean"
)
SOFT_DELETE_ROWS: list[tuple[object, ...]] = [
    ("db.inv.orders", '{"order_id":1}', 1, "c", False),
    ("db.inv.orders", '{"order_id":2}', 2, "d", True),  # deleted
    ("db.inv.orders", '{"order_id":3}', 3, "u", True),  # truncated
]

GOOD_ROWS: dict[tuple[str, str], tuple[str, list[tuple[object, ...]]]] = {
    ("bronze", "bronze_cdc_messages"): (
        BRONZE_SCHEMA,
        [
            ("m1", "{}", "value_line", "/landing/a.json", 1, LOADED),
            ("m2", "null", "kcat", "/landing/b.jsonl", 1, LOADED),
        ],
    ),
    ("silver", "stg_cdc__messages"): (
        MESSAGES_SCHEMA,
        [
            ("s1", "change", None, "c", "100"),
            ("s2", "change", None, "t", "101"),
            ("s3", "error", "unknown_op: op 'x' is not one of c, u, d, r, t", "x", None),
            ("s4", "tombstone", None, None, None),
            ("s5", "transaction", None, None, None),
        ],
    ),
    ("silver", "stg_inventory__customers"): (
        TYPED_SCHEMA,
        [
            ("c1", "db.inv.customers", "c", "1", None, 1),
            ("c2", "db.inv.customers", "t", "2", None, None),
            ("c3", "db.inv.customers", "u", "3", "missing_key: key column id is null", None),
        ],
    ),
    ("gold", "customers"): (
        GOLD_SCHEMA,
        [
            ("db.inv.customers", '{"id":1}', 1, "c"),
            ("db.inv.customers", '{"id":2}', 2, "u"),
            ("other.inv.customers", '{"id":1}', 1, "r"),
        ],
    ),
    ("gold", "orders"): (SOFT_DELETE_SCHEMA, SOFT_DELETE_ROWS),
}

# Each defect row is annotated with the expectation(s) it must break, or with the dbt data
# test that catches it (those the suites leave to `dbt build`).
BAD_ROWS: dict[tuple[str, str], tuple[str, list[tuple[object, ...]]]] = {
    # no rows at all (meta.cdc_quality.min_rows)
    ("bronze", "bronze_cdc_messages"): (BRONZE_SCHEMA, []),
    ("silver", "stg_cdc__messages"): (
        MESSAGES_SCHEMA,
        [
            ("s1", "change", None, "c", "100"),
            ("s2", "error", None, "x", None),  # error without a reason
            ("s3", "change", None, "q", "102"),  # unknown op on a change
            ("s4", "change", None, "u", None),  # change without a position
            ("s5", "tombstone", "oops: reason on a tombstone", None, None),
            ("s6", "gossip", None, None, None),  # unknown kind: dbt cdc_column_checks
            ("s7", "error", "unknown_op: op 'z'", "z", None),  # fine: ops of errors vary
        ],
    ),
    ("silver", "stg_inventory__customers"): (
        TYPED_SCHEMA,
        [
            ("c1", "db.inv.customers", "c", "1", None, 1),
            ("c2", "db.inv.customers", "t", "2", None, None),  # fine: truncate has no key
            ("c3", "db.inv.customers", "u", "3", "missing_key: id", None),  # fine: quarantined
            ("c4", "db.inv.customers", "u", "4", None, None),  # null key on a change
            ("c5", "db.inv.customers", "k", "5", None, 5),  # unknown op
            ("c5", "db.inv.customers", "k", "5", None, 5),  # ... delivered twice
        ],
    ),
    ("gold", "customers"): (
        GOLD_SCHEMA,
        [
            ("db.inv.customers", '{"id":1}', 1, "c"),
            ("db.inv.customers", '{"id":1}', 1, "u"),  # duplicate key: dbt cdc_unique_key
            ("db.inv.customers", '{"id":2}', 2, "d"),  # a delete left in current state
            ("db.inv.customers", '{"id":3}', None, "r"),  # null key: dbt cdc_column_checks
            ("other.inv.customers", '{"id":1}', 1, "c"),  # fine: another source
        ],
    ),
    # A soft-delete table: deleted rows stay, flagged; `customer_id` is not the contract's int.
    ("gold", "orders"): (
        SOFT_DELETE_SCHEMA + ", customer_id string",
        [
            *(row + ("7",) for row in SOFT_DELETE_ROWS),
            ("db.inv.orders", '{"order_id":4}', 4, "d", False, "7"),  # a live row whose op is d
            ("db.inv.orders", '{"order_id":5}', 5, "c", None, "7"),  # no soft-delete flag
        ],
    ),
    # A table without the `_cdc_op` column the suite needs.
    ("gold", "captured_rows"): (
        "_cdc_source_id string, _cdc_key string",
        [("db.inv.orders", '{"order_id":1}')],
    ),
}


@pytest.fixture(scope="module")
def manifest(dbt_project) -> dict:  # type: ignore[no-untyped-def]
    """The project's manifest, from `dbt parse` in this process."""
    dbt_project.run("parse")
    return load_manifest(dbt_project.target_path / "manifest.json")


@pytest.fixture(scope="module")
def suites(manifest: dict) -> tuple[TableSuite, ...]:
    return suites_from_manifest(manifest)


def _with_contract(manifest: dict, layer: str, table: str, schema: str, rows):  # type: ignore[no-untyped-def]
    """`schema` and `rows` with every contract column (`data_type`) of the model they lack
    added as nulls of the contract's type."""
    [spec] = [s for s in model_specs(manifest) if (s.layer, s.name) == (layer, table)]
    present = {part.split()[0] for part in schema.split(",")}
    extra = [
        (name, column["data_type"])
        for name, column in spec.columns.items()
        if column.get("data_type") and name not in present
    ]
    schema = ", ".join([schema, *(f"{name} {data_type}" for name, data_type in extra)])
    return schema, [tuple(row) + (None,) * len(extra) for row in rows]


def _write_tables(spark, manifest, prefix: str, tables) -> None:  # type: ignore[no-untyped-def]
    for layer in ("bronze", "silver", "gold"):
        spark.sql(f"drop database if exists {prefix}_{layer} cascade")
        spark.sql(f"create database {prefix}_{layer}")
    for (layer, table), (schema, rows) in tables.items():
        schema, rows = _with_contract(manifest, layer, table, schema, rows)
        frame = spark.createDataFrame(rows, schema)
        frame.write.mode("overwrite").saveAsTable(f"{prefix}_{layer}.{table}")


def _drop(spark, prefix: str) -> None:  # type: ignore[no-untyped-def]
    for layer in ("bronze", "silver", "gold"):
        spark.sql(f"drop database if exists {prefix}_{layer} cascade")


def _suites(suites: Sequence[TableSuite], keys: Sequence[str]) -> list[TableSuite]:
    return [suite for suite in suites if suite.key in keys]


@pytest.fixture(scope="module")
def bad_report(  # type: ignore[no-untyped-def]
    spark, manifest, suites, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[QualityReport]:
    _write_tables(spark, manifest, BAD, BAD_ROWS)
    missing = ["gold.order_lines"]
    keys = [f"{layer}.{table}" for layer, table in BAD_ROWS] + missing
    docs = tmp_path_factory.mktemp("bad-docs")
    yield run_quality(spark, BAD, docs, suites=_suites(suites, keys))
    _drop(spark, BAD)


def _failure(report: QualityReport, relation: str, expectation: str) -> str:
    """The one failure message of `relation` that starts with `expectation`."""
    found = [m for m in report.failures() if m.startswith(f"{relation}: {expectation}")]
    assert len(found) == 1, f"no single {expectation} failure of {relation}:\n" + "\n".join(
        report.failures()
    )
    return found[0]


@pytest.mark.parametrize(
    ("relation", "expectation", "offending"),
    [
        # silver messages: conditional expectations
        (f"{BAD}_silver.stg_cdc__messages",
         "expect_column_values_to_not_be_null(_cdc_error_reason) where _cdc_message_kind == error",
         "_message_id='s2'"),
        (f"{BAD}_silver.stg_cdc__messages",
         "expect_column_values_to_be_null(_cdc_error_reason) where _cdc_message_kind != error",
         "_cdc_error_reason='oops: reason on a tombstone'"),
        (f"{BAD}_silver.stg_cdc__messages",
         "expect_column_values_to_be_in_set(_cdc_op) where _cdc_message_kind == change",
         "_cdc_op='q'"),
        (f"{BAD}_silver.stg_cdc__messages",
         "expect_column_values_to_not_be_null(_cdc_position) where _cdc_message_kind == change",
         "_message_id='s4'"),
        # typed change log: the key from the contract's meta.cdc_key
        (f"{BAD}_silver.stg_inventory__customers",
         "expect_column_values_to_not_be_null(id) where _cdc_op != t AND _cdc_error_reason IS NULL",
         "_message_id='c4'"),
        (f"{BAD}_silver.stg_inventory__customers", "expect_column_values_to_be_in_set(_cdc_op)",
         "_cdc_op='k'"),
        # gold
        (f"{BAD}_gold.customers", "expect_column_values_to_be_in_set(_cdc_op)", "_cdc_op='d'"),
        # gold, soft delete: only live rows are held to c, u, r
        (f"{BAD}_gold.orders",
         "expect_column_values_to_be_in_set(_cdc_op) where _cdc_is_deleted == False",
         "_cdc_key='{\"order_id\":4}', _cdc_op='d'"),
        (f"{BAD}_gold.orders", "expect_column_values_to_not_be_null(_cdc_is_deleted)",
         "_cdc_key='{\"order_id\":5}'"),
    ],
)  # fmt: skip
def test_each_defect_fails_with_table_expectation_and_value(
    bad_report: QualityReport, relation: str, expectation: str, offending: str
) -> None:
    message = _failure(bad_report, relation, expectation)
    assert "rows unexpected" in message
    assert offending in message, message


def test_a_column_not_of_its_contract_type_fails(bad_report: QualityReport) -> None:
    [outcome] = [
        o
        for o in bad_report.table(f"{BAD}_gold.orders").outcomes
        if o.expectation == "expect_column_values_to_be_of_type" and not o.success
    ]
    assert outcome.columns == ("customer_id",)


def test_an_empty_bronze_fails_its_row_count(bad_report: QualityReport) -> None:
    table = bad_report.table(f"{BAD}_bronze.bronze_cdc_messages")
    assert [o.expectation for o in table.outcomes if not o.success] == [
        "expect_table_row_count_to_be_between"
    ]


def test_only_the_defects_fail(bad_report: QualityReport) -> None:
    """Rows that are fine by the contract (truncate, quarantined, errors) are not flagged,
    and defects a dbt data test catches are not checked again."""
    failed = {
        table.relation: sorted(o.describe() for o in table.outcomes if not o.success)
        for table in bad_report.tables
    }
    assert len(failed[f"{BAD}_bronze.bronze_cdc_messages"]) == 1
    assert len(failed[f"{BAD}_silver.stg_cdc__messages"]) == 4
    assert len(failed[f"{BAD}_silver.stg_inventory__customers"]) == 2
    assert len(failed[f"{BAD}_gold.customers"]) == 1
    assert len(failed[f"{BAD}_gold.orders"]) == 3
    assert not bad_report.success


def test_checks_a_dbt_data_test_runs_are_left_out(suites: Sequence[TableSuite]) -> None:
    by_key = {suite.key: suite for suite in suites}
    customers = by_key["gold.customers"]
    assert "ExpectCompoundColumnsToBeUnique(_cdc_source_id, id)" in customers.dropped
    assert "ExpectColumnValuesToNotBeNull(id)" in customers.dropped
    described = {(c.expectation.__name__, c.columns, c.when is None) for c in customers.checks}
    assert ("ExpectColumnValuesToNotBeNull", ("id",), True) not in described
    messages = by_key["silver.stg_cdc__messages"]
    assert all(c.columns != ("_cdc_message_kind",) for c in messages.checks)


def test_sample_names_each_offending_row_once(bad_report: QualityReport) -> None:
    [in_set] = [
        o
        for o in bad_report.table(f"{BAD}_silver.stg_inventory__customers").outcomes
        if o.expectation == "expect_column_values_to_be_in_set"
    ]
    assert in_set.unexpected_count == 2
    assert in_set.sample == ({"_message_id": "c5", "_cdc_op": "k"},)


def test_missing_table_and_missing_column_are_failures(bad_report: QualityReport) -> None:
    missing = bad_report.table(f"{BAD}_gold.order_lines")
    assert missing.error == "table does not exist" and not missing.success
    assert f"{BAD}_gold.order_lines: table does not exist" in "\n".join(bad_report.failures())
    message = _failure(
        bad_report, f"{BAD}_gold.captured_rows", "expect_column_values_to_not_be_null(_cdc_op)"
    )
    assert "could not run" in message and "_cdc_op" in message


def test_clean_tables_pass(spark, manifest, suites, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _write_tables(spark, manifest, GOOD, GOOD_ROWS)
    try:
        keys = [f"{layer}.{table}" for layer, table in GOOD_ROWS]
        report = run_quality(spark, GOOD, tmp_path / "docs", suites=_suites(suites, keys))
    finally:
        _drop(spark, GOOD)
    assert report.failures() == []
    assert report.success
    assert all(t.passed == t.expected > 0 for t in report.tables)


@pytest.mark.stream("replay")
def test_the_built_pipeline_passes_every_suite(streamed, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The shared stream (tests/e2e/stream.py: every envelope family, two batches,
    redeliveries, a replay and a compaction) passes every suite of its manifest."""
    manifest = load_manifest(streamed.target_path / "manifest.json")
    suites = suites_from_manifest(manifest)

    docs = tmp_path / "docs"
    report = run_quality(streamed.spark, streamed.schema, docs, suites)

    assert report.failures() == [], "\n".join(report.failures())
    models = {s.name for s in model_specs(manifest)}
    assert {t.relation.split(".")[1] for t in report.tables} == models
    assert {"bronze_cdc_messages", "stg_inventory__customers", "customers"} <= models
    assert all(t.passed == t.expected for t in report.tables)
    assert report.docs_index == (docs / "index.html").resolve()
    assert report.docs_index.is_file()
    assert "customers" in report.docs_index.read_text()


def test_cli_prints_summary_and_failures_and_exits_1(  # type: ignore[no-untyped-def]
    spark,
    dbt_project,
    suites,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    import cdc_tools.local_spark
    from cdc_tools.quality import main

    monkeypatch.setattr(cdc_tools.local_spark, "get_local_spark", lambda: spark)
    manifest = dbt_project.target_path / "manifest.json"
    code = main(
        ["--schema", "t_gxnone", "--docs-dir", str(tmp_path / "docs"), "--manifest", str(manifest)]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert out.splitlines()[0].split() == ["table", "expectations", "passed", "failed", "status"]
    [customers] = [s for s in suites if s.key == "gold.customers"]
    expected = len(customers.checks_for(()))
    assert f"t_gxnone_gold.customers: table does not exist ({expected} expectations not run)" in out
    assert f"Data Docs: {(tmp_path / 'docs' / 'index.html').resolve()}" in out
