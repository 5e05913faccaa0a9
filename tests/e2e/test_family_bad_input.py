"""Messages of the MongoDB, DataWorks and Canal families that cannot be applied are
quarantined with their reason, and the rest of the batch lands (one build for all).

MongoDB: a patch through a scalar, malformed extended JSON, an operator Debezium never
sends, a malformed `$v: 2` diff, a change-stream update whose `_id` only the Kafka key held
(landed without keys), an unknown op; the document each bad patch targets keeps its state,
and the good patches after it still apply. DataWorks and Canal: an op nobody knows is
quarantined (Paimon's reader fails the whole job instead), a heartbeat is not a change and
not an error, and the good changes around them land."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.spark


def _source(ord_: int, version: str = "1.9.7.Final") -> dict[str, object]:
    return {
        "version": version,
        "connector": "mongodb",
        "name": "bad1",
        "ts_ms": 1700000000000,
        "snapshot": "false",
        "db": "badshop",
        "rs": "rs0",
        "collection": "items",
        "ord": ord_,
    }


def _oplog(op: str, ord_: int, **fields: object) -> str:
    value = {
        "after": None,
        "patch": None,
        "filter": None,
        **fields,
        "source": _source(ord_),
        "op": op,
        "ts_ms": 1700000000500,
    }
    return json.dumps(value)


def _dataworks(op: str, sequence: str, after: dict[str, object] | None) -> str:
    schema = {
        "dataColumn": [{"name": "id", "type": "LONG"}, {"name": "name", "type": "STRING"}],
        "primaryKey": ["id"],
        "source": {"dbType": "mysql", "dbName": "dwbad", "tableName": "t"},
    }
    if op == "MHEARTBEAT":
        schema = {"dataColumn": None, "primaryKey": None, "source": None}  # type: ignore[dict-item]
    payload = {
        "before": None,
        "after": None if after is None else {"dataColumn": after},
        "sequenceId": sequence,
        "op": op,
        "timestamp": {
            "eventTime": 1700000000000,
            "systemTime": 1700000000100,
            "checkpointTime": 1700000000000,
        },
        "ddl": None,
    }
    return json.dumps({"schema": schema, "payload": payload, "version": "1.0.0"})


def _canal(kind: str, es: int, rows: list[dict[str, object]]) -> str:
    return json.dumps(
        {
            "data": rows,
            "database": "canalbad",
            "es": es,
            "id": 1,
            "isDdl": False,
            "mysqlType": {"id": "int", "name": "varchar(20)"},
            "old": None,
            "pkNames": ["id"],
            "sql": "",
            "sqlType": {"id": 4, "name": 12},
            "table": "t",
            "ts": es + 5,
            "type": kind,
        }
    )


# (reason the line must be quarantined with, or None, and the message)
LINES: list[tuple[str | None, str]] = [
    (None, _oplog("c", 1, after='{"_id": 1, "a": 5, "n": {"x": 1}}')),
    ("patch_path_through_scalar",
     _oplog("u", 2, patch='{"$set": {"a.b": 1}}', filter='{"_id": 1}')),
    ("malformed_extended_json", _oplog("c", 3, after='{"_id": 2, "d": {"$date": "not a date"}}')),
    ("unknown_patch_operator", _oplog("u", 4, patch='{"$inc": {"n.x": 1}}', filter='{"_id": 1}')),
    ("malformed_patch",
     _oplog("u", 5, patch='{"$v": 2, "diff": {"zz": 1}}', filter='{"_id": 1}')),
    (None, _oplog("u", 6, patch='{"$set": {"n.y": 2}}', filter='{"_id": 1}')),
    (None, _oplog("c", 7, after='{"_id": {"$oid": "5eb626b3452cd570b405bf7d"}, "k": 1}')),
    (None, _oplog("d", 8, filter='{"_id": {"$oid": "5EB626B3452CD570B405BF7D"}}')),
    ("missing_document_id", json.dumps({
        "before": None, "after": None, "op": "u", "ts_ms": 1700000000500,
        "updateDescription": {"removedFields": [], "updatedFields": '{"k": 2}',
                              "truncatedArrays": []},
        "source": _source(9, "2.7.0.Final"),
    })),
    ("unknown_op", _oplog("x", 10, after='{"_id": 3}')),
    (None, _dataworks("INSERT", "1000000000000000001", {"id": 1, "name": "a"})),
    ("unknown_op", _dataworks("UPSERT", "1000000000000000002", {"id": 2, "name": "b"})),
    (None, _dataworks("MHEARTBEAT", "1000000000000000003", None)),
    (None, _dataworks("INSERT", "1000000000000000004", {"id": 3, "name": "c"})),
    (None, _canal("INSERT", 1700000000000, [{"id": "1", "name": "a"}, {"id": "2", "name": "b"}])),
    ("unknown_op", _canal("MERGE", 1700000001000, [{"id": "3", "name": "c"}])),
    (None, _canal("DELETE", 1700000002000, [{"id": "2", "name": "b"}])),
]  # fmt: skip


@pytest.fixture(scope="module")
def bad_build(dbt_project):  # type: ignore[no-untyped-def]
    path = dbt_project.landing / "mongo-bad.json"
    path.write_text("\n".join(line for _, line in LINES) + "\n")
    return dbt_project.run("build")


@pytest.fixture(scope="module")
def bad_run(dbt_project, bad_build):  # type: ignore[no-untyped-def]
    return dbt_project


def test_a_partly_quarantined_source_is_a_warning(bad_run, bad_build) -> None:  # type: ignore[no-untyped-def]
    """Every table of the batch had changes that reached gold beside its quarantined
    messages: the build warns, one row per reason, source and file, and no source is one
    the run read nothing of."""
    (test,) = [
        r for r in bad_build.result.results if r.node.name == "assert_no_new_quarantined_messages"
    ]
    assert str(getattr(test.status, "value", test.status)) == "warn", test.message
    rows = bad_run.sql(test.node.compiled_code)
    assert {(r["source_kind"], r["source_name"]) for r in rows} == {
        ("table", "badshop.items"),
        ("table", "dwbad.t"),
        ("table", "canalbad.t"),
    }, rows
    assert [r for r in rows if r["reaches_nothing"] or r["source_message"]] == []
    wanted = sorted(reason for reason, _ in LINES if reason)
    assert sorted(r["reason_code"] for r in rows for _ in range(int(r["messages"]))) == wanted


def test_every_bad_message_has_its_reason(bad_run) -> None:  # type: ignore[no-untyped-def]
    rows = bad_run.sql(
        f"select _source_line, reason_code, _cdc_error_reason, quarantine_stage "
        f"from {bad_run.layer('silver')}.cdc_quarantine"
    )
    got = {row["_source_line"]: row["reason_code"] for row in rows}
    wanted = {number: reason for number, (reason, _) in enumerate(LINES, 1) if reason}
    assert got == wanted, [r["_cdc_error_reason"] for r in rows]
    stages = {row["reason_code"]: row["quarantine_stage"] for row in rows}
    assert stages["patch_path_through_scalar"] == "document"
    assert stages["missing_document_id"] == "envelope"


def test_the_rest_of_the_batch_lands(bad_run) -> None:  # type: ignore[no-untyped-def]
    """Document 1 keeps its state through the bad patches and takes the good one after
    them; document 2 (malformed) is not presented; the ObjectId document is deleted by a
    filter whose hex is upper case (the same _id)."""
    rows = bad_run.sql(
        f"select _cdc_key, _cdc_row_json, _cdc_is_partial "
        f"from {bad_run.layer('gold')}.captured_rows where _cdc_source_id = 'badshop.items'"
    )
    assert [
        (r["_cdc_key"], json.loads(r["_cdc_row_json"]), r["_cdc_is_partial"]) for r in rows
    ] == [('{"_id":1}', {"_id": 1, "a": 5, "n": {"x": 1, "y": 2}}, False)]


def test_the_other_families_land_around_their_bad_messages(bad_run) -> None:  # type: ignore[no-untyped-def]
    def rows(source_id: str) -> list[object]:
        found = bad_run.sql(
            f"select _cdc_row_json from {bad_run.layer('gold')}.captured_rows "
            f"where _cdc_source_id = '{source_id}' order by _cdc_key"
        )
        return [json.loads(r["_cdc_row_json"]) for r in found]

    assert rows("dwbad.t") == [{"id": 1, "name": "a"}, {"id": 3, "name": "c"}]
    assert rows("canalbad.t") == [{"id": "1", "name": "a"}]


# Every registered family (_cdc_connector_families), each a branch of the parsing model's plan.
FAMILIES = (
    "alibaba_dataworks",
    "canal",
    "maxwell",
    "ogg",
    "debezium_mongodb",
    "debezium_relational",
)
PLAN_PASSES = 80
"""Analyser passes the parsing model's plan may take with every family: Spark stops at
`spark.sql.analyzer.maxIterations` (default 100) with "Max iterations (100) reached for batch
Resolution". Its Resolution batch resolves one level of lambdas (`_cdc_let`, `transform`) a
pass, one CTE after the other, so the depth of the hooks adds up; at 99 passes before this
test (the OGG hooks alone: 98), one more level broke every build holding several families."""


def test_the_parsing_plan_leaves_headroom_under_the_analysers_limit(bad_run) -> None:  # type: ignore[no-untyped-def]
    # a probe cap below any count: the hooks of every family are compiled
    bad_run.run(
        "compile", "--select", "stg_cdc__messages", vars={"cdc_family_probe_max_messages": -1}
    )
    compiled = next((bad_run.target_path / "compiled").rglob("stg_cdc__messages.sql")).read_text()
    assert all(f"then '{family}'" in compiled for family in FAMILIES)
    spark = bad_run.spark
    spark.conf.set("spark.sql.analyzer.maxIterations", str(PLAN_PASSES))  # type: ignore[attr-defined]
    try:
        # as the incremental append wraps it (_cdc_append); analysed, not run
        spark.sql(f"select * from (\n{compiled}\n) as cdc_appended")  # type: ignore[attr-defined]
    finally:
        spark.conf.unset("spark.sql.analyzer.maxIterations")  # type: ignore[attr-defined]
