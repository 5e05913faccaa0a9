"""Tests of the tests: each dbt data test fails when the fault it guards against is there.

A small pipeline is built once; then, one fault at a time, a table is copied, damaged,
the matching dbt test is run (it must fail, or warn for freshness), and the table is put
back. A final run of every test on the restored tables must pass. The column checks of a
model are one test (cdc_column_checks): its failing rows, read on the damaged table, must
name the check, the column and what was wrong, and dbt's failure count must be what the
separate not_null and accepted_values tests would have counted.
"""

from __future__ import annotations

import bz2
import datetime as dt
import gzip
import json
import re
from collections.abc import Callable

import pyarrow as pa
import pytest
from pyspark.sql import functions as F

from workbench.simulator import SimConfig, simulate, write_batch
from workbench.simulator.landing import sink_file_name

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def built(dbt_project):  # type: ignore[no-untyped-def]
    result = simulate(
        SimConfig(
            seed=9, flavour="oracle", database="TT_ORA", server="tt", batches=1, transactions=25
        )
    )
    write_batch(result.batches[0], dbt_project.landing / "tt", 0, "kcat")
    dbt_project.run("build")
    return dbt_project


def _damaged(project, table: str, damage: Callable[[object, str], None], select: str):  # type: ignore[no-untyped-def]
    """Damage `table`, run the tests `select` picks, restore; returns their results."""
    return [result[:3] for result in _damaged_with_rows(project, table, damage, select)]


def _damaged_with_rows(project, table: str, damage: Callable[[object, str], None], select: str):  # type: ignore[no-untyped-def]
    """As `_damaged`, each result with the rows its test's SQL returns on the damaged
    table (the failing rows; none for a test that passed)."""
    spark = project.spark
    backup = f"{table}__backup".replace(".", "_")
    spark.sql(f"drop table if exists default.{backup}")
    spark.sql(f"create table default.{backup} using parquet as select * from {table}")
    partitioned = "cdc_bucket" in spark.table(table).columns
    try:
        damage(spark, table)
        spark.catalog.refreshTable(table)
        result = project.run("test", "--select", select, expect_success=False)
        return [
            (
                r.node.name,
                str(r.status),
                r.failures,
                project.sql(r.node.compiled_code) if r.failures else [],
            )
            for r in result.result.results
        ]
    finally:
        partition = " partition (cdc_bucket)" if partitioned else ""
        spark.sql(f"insert overwrite table {table}{partition} select * from default.{backup}")
        spark.sql(f"drop table default.{backup}")
        spark.catalog.refreshTable(table)


def _append(spark, table: str, change: Callable[[object], object]) -> None:  # type: ignore[no-untyped-def]
    """Append a changed copy of one of the table's rows."""
    row = spark.table(table).limit(1)
    change(row).select(*spark.table(table).columns).write.insertInto(table)


def _delete_where(spark, table: str, condition: str) -> None:  # type: ignore[no-untyped-def]
    """Delete the rows of `table` (not partitioned) that match `condition`."""
    kept = f"{table}__kept".replace(".", "_")
    spark.sql(f"drop table if exists default.{kept}")
    kept_rows = f"select * from {table} where not ({condition})"
    spark.sql(f"create table default.{kept} using parquet as {kept_rows}")
    spark.sql(f"insert overwrite table {table} select * from default.{kept}")
    spark.sql(f"drop table default.{kept}")
    spark.catalog.refreshTable(table)


def _with(**values: object) -> Callable[[object], object]:
    """A change for `_append`: the row with these column values."""

    def change(row):  # type: ignore[no-untyped-def]
        for column, value in values.items():
            row = row.withColumn(column, F.lit(value))
        return row

    return change


def _assert_failed(results, test_prefix: str, status: str = "fail") -> None:  # type: ignore[no-untyped-def]
    hits = [r for r in results if r[0].startswith(test_prefix)]
    assert hits, f"no test named {test_prefix}* ran: {results}"
    assert all(s == status and (failures or 0) > 0 for _, s, failures in hits), hits


def _gold(project, table: str) -> str:  # type: ignore[no-untyped-def]
    return f"{project.layer('gold')}.{table}__cdc_state"


def test_duplicate_bronze_message_fails_unique(built) -> None:  # type: ignore[no-untyped-def]
    table = f"{built.layer('bronze')}.bronze_cdc_messages"
    results = _damaged(
        built,
        table,
        lambda s, t: _append(s, t, lambda r: r),
        "bronze_cdc_messages,test_name:unique",
    )
    _assert_failed(results, "unique_bronze_cdc_messages")


def test_message_lost_between_bronze_and_silver_fails_reconciliation(built) -> None:  # type: ignore[no-untyped-def]
    table = f"{built.layer('silver')}.stg_cdc__messages"

    def lose_one(spark, t):  # type: ignore[no-untyped-def]
        backup = f"default.{t.replace('.', '_')}__backup"
        spark.sql(
            f"insert overwrite table {t} select * from {backup} "
            f"where _message_id != (select min(_message_id) from {backup})"
        )

    results = _damaged(built, table, lose_one, "assert_every_bronze_message_reaches_silver_once")
    _assert_failed(results, "assert_every_bronze_message_reaches_silver_once")


def test_duplicate_gold_key_fails_unique_key(built) -> None:  # type: ignore[no-untyped-def]
    table = _gold(built, "customers")
    results = _damaged(
        built,
        table,
        lambda s, t: _append(s, t, lambda r: r.where("cdc_bucket >= 0 and not _cdc_is_deleted")),
        "customers,test_name:cdc_unique_key",
    )
    _assert_failed(results, "cdc_lakehouse_cdc_unique_key_customers")


def _failing_rows(results, test_prefix: str) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    """The failing rows of the one test named `test_prefix`*, which failed; dbt's failure
    count is the sum of their `failures`."""
    [(name, status, failures, rows)] = [r for r in results if r[0].startswith(test_prefix)]
    assert status == "fail" and failures > 0, (name, status, failures)
    assert failures == sum(int(row["failures"]) for row in rows), (failures, rows)  # type: ignore[call-overload]
    return sorted(rows, key=lambda row: (str(row["check_name"]), str(row["failing_value"])))


def _checks(rows: list[dict[str, object]]) -> list[tuple[object, ...]]:
    """What each failing row of a cdc_column_checks test says."""
    fields = ("model_name", "check_name", "column_name", "failing_value", "failing_rows")
    return [(*(row[f] for f in fields), row["failures"], row["message"]) for row in rows]


def test_null_gold_key_fails_not_null(built) -> None:  # type: ignore[no-untyped-def]
    table = _gold(built, "customers")
    results = _damaged_with_rows(
        built,
        table,
        lambda s, t: _append(
            s,
            t,
            lambda r: r.where("cdc_bucket >= 0 and not _cdc_is_deleted").withColumn(
                "id", F.lit(None).cast("int")
            ),
        ),
        "customers,test_name:cdc_column_checks",
    )
    rows = _failing_rows(results, "cdc_lakehouse_cdc_column_checks_customers")
    assert _checks(rows) == [
        ("customers", "not_null", "id", None, 1, 1, "1 row of customers has a null id")
    ]


def test_gold_behind_its_change_log_fails(built) -> None:  # type: ignore[no-untyped-def]
    table = _gold(built, "orders")

    def rewind_in_order(spark, t):  # type: ignore[no-untyped-def]
        columns = spark.table(t).columns
        rows = (
            spark.table(t)
            .withColumn(
                "_cdc_position",
                F.when(F.col("cdc_bucket") >= 0, F.lit("0")).otherwise(F.col("_cdc_position")),
            )
            .select(*columns)
        )
        rows.localCheckpoint().write.insertInto(t, overwrite=True)

    results = _damaged(
        built, table, rewind_in_order, "orders,test_name:cdc_position_not_behind_change_log"
    )
    _assert_failed(results, "cdc_lakehouse_cdc_position_not_behind_change_log_orders")


def test_unknown_op_in_change_log_fails_accepted_values(built) -> None:  # type: ignore[no-untyped-def]
    table = f"{built.layer('silver')}.stg_cdc__messages"
    results = _damaged_with_rows(
        built,
        table,
        lambda s, t: _append(
            s,
            t,
            _with(_cdc_message_kind="change", _cdc_op="z", _message_id="fault", _cdc_position="1"),
        ),
        "int_cdc__change_log,test_name:cdc_column_checks",
    )
    rows = _failing_rows(results, "cdc_column_checks_int_cdc__change_log")
    assert _checks(rows) == [
        (
            "int_cdc__change_log",
            "accepted_values",
            "_cdc_op",
            "z",
            1,
            1,
            "1 row of int_cdc__change_log has _cdc_op 'z', not one of: c, u, d, r, t",
        )
    ]


def test_column_checks_count_as_the_separate_tests_would(built) -> None:  # type: ignore[no-untyped-def]
    """Bronze rows with a null `_source_line` and unknown record formats: one test, one
    failing row per check, column and unaccepted value; dbt counts the null rows (as
    not_null does) and the unaccepted values (as accepted_values does)."""
    table = f"{built.layer('bronze')}.bronze_cdc_messages"

    def damage(spark, t):  # type: ignore[no-untyped-def]
        for number, record_format in enumerate(["bogus", "bogus", "weird"]):
            _append(
                spark,
                t,
                lambda row, n=number, f=record_format: _with(
                    _message_id=f"fault-{n}", _record_format=f
                )(row).withColumn(
                    "_source_line",
                    F.lit(None).cast(spark.table(t).schema["_source_line"].dataType)
                    if f == "bogus"
                    else F.col("_source_line"),
                ),
            )

    results = _damaged_with_rows(
        built, table, damage, "bronze_cdc_messages,test_name:cdc_column_checks"
    )
    rows = _failing_rows(results, "cdc_column_checks_bronze_cdc_messages")
    accepted = "not one of: value_line, kcat, kafka, avro, parquet, unreadable_file"
    assert _checks(rows) == [
        (
            "bronze_cdc_messages",
            "accepted_values",
            "_record_format",
            "bogus",
            2,
            1,
            f"2 rows of bronze_cdc_messages have _record_format 'bogus', {accepted}",
        ),
        (
            "bronze_cdc_messages",
            "accepted_values",
            "_record_format",
            "weird",
            1,
            1,
            f"1 row of bronze_cdc_messages has _record_format 'weird', {accepted}",
        ),
        (
            "bronze_cdc_messages",
            "not_null",
            "_source_line",
            None,
            2,
            2,
            "2 rows of bronze_cdc_messages have a null _source_line",
        ),
    ]
    # not_null would count 2 rows, accepted_values 2 values
    assert [r[2] for r in results if r[0].startswith("cdc_column_checks_bronze")] == [4]


def test_unexplained_quarantine_reason_fails_relationships(built) -> None:  # type: ignore[no-untyped-def]
    table = f"{built.layer('silver')}.stg_cdc__messages"
    results = _damaged(
        built,
        table,
        lambda s, t: _append(
            s,
            t,
            _with(
                _cdc_message_kind="error",
                _cdc_error_reason="bogus: no such reason",
                _message_id="fault",
            ),
        ),
        "cdc_quarantine_summary,test_name:relationships",
    )
    _assert_failed(results, "relationships_cdc_quarantine_summary")


def test_quarantine_duplicates_fail_reconciliation(built) -> None:  # type: ignore[no-untyped-def]
    table = f"{built.layer('silver')}.stg_cdc__messages"

    def two_copies(spark, t):  # type: ignore[no-untyped-def]
        for _ in range(2):
            _append(
                spark,
                t,
                _with(
                    _cdc_message_kind="error",
                    _cdc_error_reason="unknown_op: twice",
                    _message_id="twice",
                ),
            )

    results = _damaged(
        built, table, two_copies, "assert_every_unreadable_message_is_quarantined_once"
    )
    _assert_failed(results, "assert_every_unreadable_message_is_quarantined_once")


def test_stale_bronze_warns(built) -> None:  # type: ignore[no-untyped-def]
    result = built.run(
        "test",
        "--select",
        "bronze_cdc_messages,test_name:cdc_recency",
        vars={"cdc_freshness_max_age_hours": -1},
        expect_success=False,
    )
    # (the package's on-run-end hook reports too: resource type operation)
    [(name, status)] = [
        (r.node.name, str(r.status))
        for r in result.result.results
        if r.node.resource_type == "test"
    ]
    assert name.startswith("cdc_recency_bronze_cdc_messages") and status == "warn"


def test_every_test_passes_on_the_restored_tables(built) -> None:  # type: ignore[no-untyped-def]
    built.run("test")


# ------------------------------------------------- a build checks what it loaded
LOADED = {"cdc_test_scope": "loaded"}


def _bookkeeping(project) -> dict[str, dict[str, str]]:  # type: ignore[no-untyped-def]
    """The run bookkeeping (`cdc.*` table properties) of every table the project wrote."""
    spark = project.spark
    tables: dict[str, dict[str, str]] = {}
    for layer in ("bronze", "silver", "gold"):
        schema = project.layer(layer)
        # SQL, not `spark.catalog.listTables`: PySpark's catalog listing fails when Spark
        # interprets expressions (CDC_SPARK_CODEGEN=false), as the suite runs
        views = {row["viewName"] for row in spark.sql(f"show views in {schema}").collect()}
        for table in spark.sql(f"show tables in {schema}").collect():
            if table["isTemporary"] or table["tableName"] in views:
                continue
            name = f"{schema}.{table['tableName']}"
            rows = spark.sql(f"show tblproperties {name}").collect()
            properties = {r[0]: r[1] for r in rows if r[0].startswith("cdc.")}
            if "cdc.read_through" in properties:
                tables[name] = properties
    return tables


def test_a_build_with_nothing_new_writes_nothing_and_checks_nothing(built) -> None:  # type: ignore[no-untyped-def]
    before = _bookkeeping(built)
    assert {t.rsplit(".", 1)[1] for t in before} >= {
        "bronze_cdc_messages",
        "stg_cdc__messages",
        "stg_inventory__customers",
        "customers__cdc_state",
        "captured_rows__cdc_state",
    }, sorted(before)
    result = built.run("build", vars=LOADED)
    assert _bookkeeping(built) == before, "a build with no new landing file wrote a table"
    tests = {
        r.node.name: r.node.compiled_code
        for r in result.result.results
        if r.node.resource_type == "test"
    }
    unique_bronze = next(
        code for name, code in tests.items() if name.startswith("unique_bronze_cdc_messages")
    )
    assert "where false" in unique_bronze, unique_bronze
    # the column checks of a model read it through the same scope: here, no row
    column_checks = tests["cdc_column_checks_bronze_cdc_messages"]
    assert "where false" in column_checks, column_checks
    position = next(
        code
        for name, code in tests.items()
        if name.startswith("cdc_lakehouse_cdc_position_not_behind_change_log_customers")
    )
    assert "nothing to check" in position, position


# copies of a message loaded before every build (outside what a build loads) and after
OLD_COPY = dt.datetime(2000, 1, 1)
NEW_COPY = dt.datetime(2999, 1, 1)


def test_a_build_checks_the_rows_it_loaded_and_dbt_test_checks_every_row(built) -> None:  # type: ignore[no-untyped-def]
    spark = built.spark
    stg = f"{built.layer('silver')}.stg_cdc__messages"
    source = simulate(
        SimConfig(
            seed=12, flavour="oracle", database="TT_ORA2", server="tt2", batches=2, transactions=8
        )
    )

    # an old message twice: outside what the next build loads, so its tests pass; a
    # whole-table `dbt test` finds it. Heartbeats skip offsets 3-5 of partition 0: the
    # build warns of that gap
    _append(spark, stg, _with(_loaded_at=OLD_COPY))
    write_batch(source.batches[0], built.landing / "tt2", 0, "kcat")
    _land_heartbeats(built, "0.jsonl", {0: [0, 1, 2, 6, 7]})
    folding = [f"{built.layer('silver')}.{m}" for m in FOLDING_MODELS]
    rows_before = {t: built.spark.table(t).count() for t in folding}
    first = built.run("build", "--select", *LOADING_CHECKED, vars=LOADED)
    assert _new_gaps(built, first) == [
        f"3 offsets missing in 1 range of topic {HEARTBEATS} partition 0: 3-5"
    ]
    # new relational changes only: the models of keyless rows and folded documents probed
    # for theirs (cdc_skip_unless_new_input), found none and wrote nothing, but record that
    # they read through what stg_cdc__messages holds (else the models reading them would
    # count the change log as complete only through the previous load, and skip this one)
    skipped = {
        r.node.name for r in first.result.results if NO_NEW_INPUT in (r.node.compiled_code or "")
    }
    # (the schema-change keys too: bronze recorded that its new lines held no schema-change
    # event, so that model skipped without a query, cdc_input_kinds; and the carried changes:
    # stg_cdc__messages recorded no unavailable-value placeholder and no PostgreSQL delete)
    assert skipped == {
        *FOLDING_MODELS,
        "int_cdc__schema_change_keys",
        "int_cdc__carried_changes",
    }, skipped
    # the column checks of a model the build loaded check the rows it loaded
    [column_checks] = [
        r.node.compiled_code
        for r in first.result.results
        if r.node.name == "cdc_column_checks_stg_cdc__messages"
    ]
    assert "where _loaded_at > timestamp'" in column_checks, column_checks
    assert {t: built.spark.table(t).count() for t in folding} == rows_before
    bookkeeping = _bookkeeping(built)
    stg_read_through = bookkeeping[stg]["cdc.read_through"]
    assert [bookkeeping[t]["cdc.read_through"] for t in folding] == [stg_read_through] * 2
    customers = f"{built.layer('silver')}.stg_inventory__customers"
    assert bookkeeping[customers]["cdc.read_through"] == stg_read_through
    [loaded] = built.sql(f"select count(*) as n from {customers} where _cdc_source_db = 'TT_ORA2'")
    assert loaded["n"] > 0, "the typed change log read the new source's changes"
    whole = built.run(
        "test", "--select", "stg_cdc__messages,test_name:unique", expect_success=False
    )
    _assert_failed(
        [(r.node.name, str(r.status), r.failures) for r in whole.result.results],
        "unique_stg_cdc__messages",
    )

    # a message twice among the rows the next build loads: that build fails on it. The
    # heartbeats go on after partition 0's gap (nothing new there) and skip offsets 1-3 of
    # partition 1: the build warns of the new gap only
    _append(spark, stg, _with(_loaded_at=NEW_COPY))
    write_batch(source.batches[1], built.landing / "tt2", 1, "kcat")
    _land_heartbeats(built, "1.jsonl", {0: [8, 9], 1: [0, 4]})
    scoped = built.run("build", "--select", *LOADING_CHECKED, vars=LOADED, expect_success=False)
    results = [(r.node.name, str(r.status), r.failures) for r in scoped.result.results]
    _assert_failed(results, "unique_stg_cdc__messages")
    assert _new_gaps(built, scoped) == [
        f"3 offsets missing in 1 range of topic {HEARTBEATS} partition 1: 1-3"
    ]
    listed = built.sql(
        "select _kafka_partition, first_missing_offset, last_missing_offset "
        f"from {built.layer('silver')}.cdc_delivery_gaps where _kafka_topic = '{HEARTBEATS}'"
    )
    assert sorted(tuple(row.values()) for row in listed) == [(0, 3, 5), (1, 1, 3)]
    # the module's later builds load after this one: the copies go
    _delete_where(spark, stg, f"_loaded_at in ('{OLD_COPY}', '{NEW_COPY}')")
    assert built.sql(f"select count(*) as n from {stg} where _loaded_at > now()")[0]["n"] == 0


# What the two builds above read: the change log's typed model and the models of keyless
# rows and folded documents with what feeds them, the delivery gaps and their warning (no
# test after them reads gold: the module's earlier tests checked it)
LOADING_CHECKED = (
    "+stg_inventory__customers",
    "+int_cdc__keyless_changes",
    "+int_cdc__document_changes",
    "+cdc_delivery_gaps",
)
HEARTBEATS = "__debezium-heartbeat.ttgaps"
# the models with nothing to do without rows of their kind, and the comment that says so
FOLDING_MODELS = ("int_cdc__keyless_changes", "int_cdc__document_changes")
NO_NEW_INPUT = "/* cdc: no new input */"


def _land_heartbeats(project, name: str, offsets: dict[int, list[int]]) -> None:  # type: ignore[no-untyped-def]
    """Debezium heartbeats (kcat records, key `serverName`) at these offsets per partition."""
    records = [
        {
            "topic": HEARTBEATS,
            "partition": partition,
            "offset": offset,
            "tstype": "create",
            "ts": 1_700_000_000_000 + offset,
            "key": json.dumps({"serverName": "ttgaps"}),
            "payload": json.dumps({"ts_ms": 1_700_000_000_000 + offset}),
        }
        for partition, listed in offsets.items()
        for offset in listed
    ]
    folder = project.landing / "ttgaps"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text("".join(json.dumps(record) + "\n" for record in records))


def _new_gaps(project, result) -> list[str]:  # type: ignore[no-untyped-def]
    """The messages of the build's warning of new delivery gaps (its SQL run again)."""
    (test,) = [r for r in result.result.results if r.node.name == "assert_no_new_delivery_gaps"]
    assert str(test.status) == "warn", test.status
    return sorted(str(row["message"]) for row in project.sql(test.node.compiled_code))


# ------------------------------------------------- a run says what it could not read
CODECS = {
    ".gz": lambda data: gzip.compress(data),
    ".bz2": lambda data: bz2.compress(data),
    ".zst": lambda data: pa.compress(data, codec="zstd", asbytes=True),
}
MAGIC = {".gz": "gzip", ".bz2": "bzip2", ".zst": "zstd"}


def _land_compressed(  # type: ignore[no-untyped-def]
    project, folder: str, messages, flush_size: int, named: bool = True
) -> dict[str, str]:
    """The messages as a Kafka Connect sink writes them with compression on: files of
    `flush_size` records, `topics/<topic>/partition=<p>/<topic>+<p>+<start offset>.json.gz`
    (or `.bz2`, `.zst`, in turn), one value a line; returns each file's name and codec.
    Not `named`: every file is named `.json`, as if renamed on the way."""
    landed = {}
    groups: dict[tuple[str, int], list] = {}  # type: ignore[type-arg]
    for message in sorted(messages, key=lambda m: (m.topic, m.partition, m.offset)):
        groups.setdefault((message.topic, message.partition), []).append(message)
    for (topic, partition), group in groups.items():
        for start in range(0, len(group), flush_size):
            chunk = group[start : start + flush_size]
            suffix = list(CODECS)[len(landed) % len(CODECS)]
            extension = ".json" + (suffix if named else "")
            name = sink_file_name(topic, partition, chunk[0].offset, extension)
            target = project.landing / folder / "topics" / topic / f"partition={partition}" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            lines = "".join(("null" if m.value is None else m.value) + "\n" for m in chunk)
            target.write_bytes(CODECS[suffix](lines.encode()))
            landed[name] = MAGIC[suffix]
    return landed


def _count_in(project, topic: str) -> int:  # type: ignore[no-untyped-def]
    """The messages bronze holds of `topic` from the files under ttz-compressed2/."""
    [row] = project.sql(
        f"select count(*) as n from {project.layer('bronze')}.bronze_cdc_messages "
        f"where _source_file like '%/ttz-compressed2/%' and _kafka_topic = '{topic}'"
    )
    return int(row["n"])


def _quarantine_report(project, result) -> list[str]:  # type: ignore[no-untyped-def]
    """The messages of the build's warning of what it quarantined (its SQL run again)."""
    (test,) = [
        r for r in result.result.results if r.node.name == "assert_no_new_quarantined_messages"
    ]
    assert str(test.status) == "warn", (test.status, test.message)
    return sorted(str(row["message"]) for row in project.sql(test.node.compiled_code))


def test_a_run_says_what_it_could_not_read(built) -> None:  # type: ignore[no-untyped-def]
    """Kafka Connect sink files written with compression on (gzip, bzip2, zstd): bronze
    decompresses the `.gz`, `.bz2` and `.zst` ones, every line read (a build that loads
    them beside a broken line warns of that line only: a file of one broken line is a
    source the run read nothing of, an error unless var cdc_unread_source_severity is
    `warn`, as here); twelve more it cannot read (the same bytes under a `.json` name),
    loaded alone, fail the build, which names each file and codec."""
    source = simulate(
        SimConfig(
            seed=13, flavour="sqlserver", database="TT_MSS", server="ttz", batches=2,
            transactions=30,
        )
    )  # fmt: skip
    write_batch(source.batches[0], built.landing / "ttz", 0, "value_lines")
    (built.landing / "ttz" / "broken.json").write_text('{"op": "c", "after": {"id": 1\n')
    first = _land_compressed(built, "ttz-compressed", source.batches[1][:30], flush_size=10)
    # what the report reads: bronze, stg_cdc__messages and the quarantine (as below)
    warned = built.run(
        "build", "--select", "+stg_cdc__messages", "cdc_quarantine",
        vars={**LOADED, "cdc_unread_source_severity": "warn"},
    )  # fmt: skip
    report = _quarantine_report(built, warned)
    assert any(
        line.startswith("truncated_json: 1 message of 1 in ") and line.endswith("/broken.json")
        for line in report
    ), report
    (test,) = [
        r for r in warned.result.results if r.node.name == "assert_no_new_quarantined_messages"
    ]
    assert [
        (r["source_kind"], r["reason_code"]) for r in built.sql(test.node.compiled_code)
        if r["reaches_nothing"]
    ] == [("file", "truncated_json")]  # fmt: skip
    assert set(first.values()) == {"gzip", "bzip2", "zstd"}, first
    for name in first:  # decompressed by its extension: every line read
        lines = [line for line in report if f"/{name} " in line]
        assert not lines, lines
    [row] = built.sql(
        f"select count(*) as n, count_if(_is_valid_utf8) as valid "
        f"from {built.layer('bronze')}.bronze_cdc_messages "
        "where _source_file rlike '/ttz-compressed/.*[.](gz|bz2|zst)$'"
    )
    assert row["n"] == row["valid"] == 30, row
    read = built.sql(
        f"select raw_line from {built.layer('bronze')}.bronze_cdc_messages "
        "where _source_file like '%/ttz-compressed/%'"
    )
    expected = ["null" if m.value is None else m.value for m in source.batches[1][:30]]
    assert sorted(r["raw_line"] for r in read) == sorted(expected)

    landed = _land_compressed(
        built, "ttz-compressed2", source.batches[1][30:], flush_size=6, named=False
    )
    assert len(landed) >= 12, landed
    stopped = built.run(
        # stg_cdc__messages reads through what all its inputs hold: its upstream with it
        "build", "--select", "+stg_cdc__messages", "cdc_quarantine",
        vars=LOADED, expect_success=False,
    )  # fmt: skip
    (test,) = [
        r for r in stopped.result.results if r.node.name == "assert_no_new_quarantined_messages"
    ]
    assert str(test.status) == "error", [
        (r.node.name, str(r.status), r.message)
        for r in stopped.result.results
        if str(r.status) not in ("pass", "success")
    ]
    loaded = built.sql(
        f"select count(*) as n from {built.layer('bronze')}.bronze_cdc_messages "
        "where _source_file like '%/ttz-compressed2/%'"
    )[0]["n"]
    assert f"this run quarantined {loaded} of the {loaded} messages it loaded" in test.message
    for name, codec in landed.items():
        assert f"/{name} (" in test.message or len(landed) > 20, name
        assert f"{codec}-compressed" in test.message
    # each topic of the files was read nothing of: named with its count and reasons (the
    # most frequent first: a compressed file's bytes may hold a line that is UTF-8 text)
    for topic in {name.split("+", 1)[0] for name in landed}:
        line = rf"[a-z_, ]*invalid_utf8[a-z_, ]*: {_count_in(built, topic)} messages of "
        line += rf"{re.escape(topic)}, none reached gold \(in "
        assert re.search(line, str(test.message)), (topic, test.message)
