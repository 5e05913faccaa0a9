"""End to end: simulator -> landing files -> dbt build -> gold equals the source database.

Ten simulated source databases share one landing folder and one `dbt build`: the three
Debezium relational flavours (Oracle, SQL Server, Db2), each with and without the schema
wrapper, alternating the two landing formats; four more exercise the event stream:
incremental snapshots interleaved with streaming, `source.snapshot` as strings or booleans,
transaction metadata (topic and block), the schema-change topic, a column added and one
dropped mid-stream, and tables no contract declares whose key comes from the schema-change
topic. Between them they use every `decimal.handling.mode` (precise, double, string) and
`time.precision.mode` (adaptive, connect), so every column value encoding of ENVELOPES.md
§1 reaches gold. A second batch of files on top of the first is then loaded incrementally,
and gold must equal the source state (as a consumer decodes it, see
workbench.simulator.expected) after each batch.

The sources are this module's part of the shared stream (tests/e2e/stream.py): their files
land under `relational/` of the stream's landing folder, beside the other parts', and the
builds are the stream's; every count here is scoped to this part's files and databases.
"""

from __future__ import annotations

import functools
import json

import pytest

from tests.conftest import DbtProject
from tests.e2e.stream import (
    Part,
    Stream,
    batch_lander,
    gold_rows_of,
    owned_by,
    register,
    step_vars,
    stream_databases,
)
from workbench.demo import replayed_sources
from workbench.oracle_check import (
    ROW_JSON_COLUMN,
    GoldReader,
    canonical_key,
    compare_captured_images,
    compare_database,
)
from workbench.simulator import TABLES, SimConfig, SimResult, simulate
from workbench.simulator.source_db import ADDED_COLUMN

pytestmark = pytest.mark.spark

_EVENTS: dict[str, object] = {"transaction_metadata": True, "schema_change_topic": True}
_DOUBLE: dict[str, object] = {"decimal_handling_mode": "double"}
# (flavour, schemas_enable, landing format, SimConfig options: value encodings and events)
SOURCES: list[tuple[str, bool, str, dict[str, object]]] = [
    ("oracle", False, "value_lines", {}),
    ("oracle", True, "kcat", {"decimal_handling_mode": "string", "time_precision_mode": "connect"}),
    ("sqlserver", False, "kcat", {}),
    ("sqlserver", True, "value_lines", {"time_precision_mode": "connect"}),
    ("db2", False, "value_lines", {}),
    ("db2", True, "kcat", {}),
    # the event stream (see the module docstring), and the remaining decimal modes
    ("sqlserver", True, "value_lines", {
        **_EVENTS, **_DOUBLE, "snapshot_style": "string", "incremental_snapshot_batches": (0, 1),
        "evolve_batch": 1,
    }),
    ("oracle", False, "value_lines", {
        **_EVENTS, **_DOUBLE, "snapshot_style": "boolean", "incremental_snapshot_batches": (1,),
        "evolve_batch": 1, "table_names": {"order_lines": "order_items"},
    }),
    ("db2", False, "value_lines", {
        "transaction_metadata": False, "schema_change_topic": True, "snapshot_style": "boolean",
        "incremental_snapshot_batches": (0,), "decimal_handling_mode": "string",
        "truncate_probability": 0.01,
        "table_names": {"orders": "purchases", "order_lines": "purchase_lines"},
    }),
    ("oracle", True, "kcat", {
        **_EVENTS, "snapshot_style": "string", "incremental_snapshot_batches": (0, 1),
        "evolve_batch": 1,
    }),
]  # fmt: skip


def _database(index: int, flavour: str) -> str:
    return f"E2E{index}_{flavour.upper()}"


def _configs() -> list[SimConfig]:
    return [
        SimConfig(
            seed=100 + index,
            flavour=flavour,
            database=_database(index, flavour),
            server=f"e2e{index}",
            schemas_enable=wrapped,
            batches=2,
            transactions=50,
            **options,  # type: ignore[arg-type]
        )
        for index, (flavour, wrapped, _, options) in enumerate(SOURCES)
    ]


@functools.cache
def _simulations() -> list[tuple[SimResult, str]]:
    return [
        (simulate(config), fmt) for config, (_, _, fmt, _) in zip(_configs(), SOURCES, strict=True)
    ]


# Every source but the first is listed as replayed, as `make demo` lists its own
# (workbench.demo.replayed_sources): the quiet-source test measures them by their loads. The
# first stands for a real source: its newest events are years old, so it has gone quiet.
QUIET = 0


@pytest.fixture(scope="session")
def simulations() -> list[tuple[SimResult, str]]:
    return _simulations()


@pytest.fixture
def dbt_project(streamed: DbtProject) -> DbtProject:
    """The shared stream, built up to the test's step (tests/e2e/stream.py)."""
    return streamed


PART = "relational"
GOLD_TABLES = ("customers", "orders", "order_lines", "captured_rows")


def _loads(dbt_project) -> int:  # type: ignore[no-untyped-def]
    [row] = dbt_project.sql(
        f"select count(distinct _load_id) as loads from "
        f"{dbt_project.layer('bronze')}.bronze_cdc_messages "
        f"where _source_file like '{dbt_project.landed_under(PART)}'"
    )
    return int(row["loads"])


def _customers(dbt_project) -> list[dict]:  # type: ignore[no-untyped-def]
    gold = dbt_project.layer("gold")
    return dbt_project.sql(f"select * from {gold}.customers order by _cdc_source_id, id")


register(
    Part(
        PART,
        land=batch_lander(_simulations),
        databases=tuple(_database(i, flavour) for i, (flavour, *_) in enumerate(SOURCES)),
        before={
            "batch1": lambda p: (_loads(p), _history_written_by(p), _view_created(p)),
            "noop": lambda p: (_customers(p), _history_written_by(p)),
            "full_refresh": lambda p: (
                gold_rows_of(p, PART, GOLD_TABLES),
                _history_written_by(p),
                _view_created(p),
            ),
        },
        vars={
            "cdc_replayed_sources": replayed_sources(
                [c for i, c in enumerate(_configs()) if i != QUIET]
            )
        },
    )
)


def _assert_gold_matches(dbt_project, simulations, batch: int, columns=None) -> None:  # type: ignore[no-untyped-def]
    failures = []
    reader = GoldReader(dbt_project.spark)
    for result, _ in simulations:
        outcome = compare_database(
            dbt_project.spark,
            dbt_project.layer("gold"),
            result.config.database,
            result.expected[batch],
            columns=columns,
            skip=set(result.config.table_names),
            result=result,
            batch=batch,
            databases=stream_databases(),
            reader=reader,
        )
        assert sum(outcome.rows.values()) > 0 or not any(result.expected[batch].values())
        if not outcome.ok:
            failures.append(f"{result.config.database}: " + "\n  ".join(outcome.differences))
    assert not failures, "gold differs from the simulated source:\n" + "\n".join(failures)


@pytest.mark.stream("batch0")
def test_first_batch_builds_gold_equal_to_the_source(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _assert_gold_matches(dbt_project, simulations, 0)


@pytest.mark.stream("batch0")
def test_captured_rows_decode_what_the_message_schema_types(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """captured_rows of the schema-wrapped sources (Oracle: BALANCE Decimal bytes, DATE as
    ms, CREATED_AT MicroTimestamp; SQL Server and Db2 times and nanosecond timestamps)
    hold the values the simulator predicts from the source values as decoded text; the
    schemaless sources keep the wire form."""
    wrapped = [r for r, _ in simulations if r.config.schemas_enable]
    assert {r.config.flavour for r in wrapped} == {"oracle", "sqlserver", "db2"}
    reader = GoldReader(dbt_project.spark)
    failures = [
        f"{result.config.database}: {difference}"
        for result, _ in simulations
        for difference in compare_captured_images(
            dbt_project.spark, dbt_project.layer("gold"), result, 0, reader=reader
        )[:10]
    ]
    assert not failures, "\n".join(failures)


@pytest.mark.stream("batch0")
def test_every_message_is_accounted_for(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    bronze = dbt_project.layer("bronze")
    silver = dbt_project.layer("silver")
    sent = sum(len(result.batches[0]) for result, _ in simulations)
    mine = f"where _source_file like '{dbt_project.landed_under(PART)}'"
    [counts] = dbt_project.sql(
        f"select (select count(*) from {bronze}.bronze_cdc_messages {mine}) as bronze, "
        f"(select count(*) from {silver}.stg_cdc__messages {mine}) as silver, "
        f"(select count(*) from {silver}.cdc_quarantine {mine}) as quarantined"
    )
    assert counts == {"bronze": sent, "silver": sent, "quarantined": 0}


def _view_created(dbt_project) -> str:  # type: ignore[no-untyped-def]
    """When gold's `customers` view was created (Spark's `Created Time` of the view)."""
    rows = dbt_project.sql(f"describe table extended {dbt_project.layer('gold')}.customers")
    [created] = [row["data_type"] for row in rows if row["col_name"] == "Created Time"]
    return str(created)


def _history_written_by(dbt_project) -> str:  # type: ignore[no-untyped-def]
    """The dbt invocation that last wrote customer_history's state (cdc_history)."""
    rows = dbt_project.sql(
        f"show tblproperties {dbt_project.layer('gold')}.customer_history__cdc_state"
    )
    [written_by] = [row["value"] for row in rows if row["key"] == "cdc.written_by"]
    return str(written_by)


@pytest.mark.stream("batch0")
def test_the_oracle_sees_what_the_contract_columns_do_not(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """compare_database on a tampered copy of gold whose contract columns of the live rows
    are all intact: a row owned by no source, a wrong `_cdc_op`, a column of the wrong
    type (equal values), a soft-deleted row gone, and a `captured_rows` value of a renamed
    table turned from `1` into `1.0`. Each must be reported."""
    spark = dbt_project.spark
    gold, tampered = dbt_project.layer("gold"), f"{dbt_project.schema}_tampered"
    spark.sql(f"drop database if exists {tampered} cascade")
    spark.sql(f"create database {tampered}")
    renamed = next(r for r, _ in simulations if "order_lines" in r.config.table_names)
    items = f"{renamed.config.database}.inventory.{renamed.config.table_names['order_lines']}"
    mine = owned_by(PART)
    [line] = dbt_project.sql(
        f"select _cdc_op, _cdc_key from {gold}.order_lines where {mine} order by _cdc_key limit 1"
    )
    [gone] = dbt_project.sql(
        f"select _cdc_key from {gold}.orders where _cdc_is_deleted and {mine} "
        "order by _cdc_key limit 1"
    )
    queries = {
        "order_lines": f"select * except (_cdc_op), case when _cdc_key = '{line['_cdc_key']}' "
        f"then 'x' else _cdc_op end as _cdc_op from {gold}.order_lines",
        "orders": f"select * from {gold}.orders where _cdc_key != '{gone['_cdc_key']}'",
    }
    for table, query in queries.items():
        spark.sql(f"create table {tampered}.{table} using parquet as {query}")
    customers = spark.sql(f"select * except (id), cast(id as bigint) as id from {gold}.customers")
    from pyspark.sql import functions

    # a copy of one row under a source database no simulation has
    owner = functions.concat(customers["_cdc_source_db"], functions.lit("_other"))
    stray = customers.limit(1).withColumn("_cdc_source_db", owner)
    customers.unionByName(stray).write.saveAsTable(f"{tampered}.customers")
    captured = spark.table(f"{gold}.captured_rows")
    rows = [row.asDict() for row in captured.collect()]
    [first] = [r for r in rows if r["_cdc_source_id"] == items.lower()][:1]
    image = json.loads(first[ROW_JSON_COLUMN])
    column = next(c for c, v in image.items() if type(v) is int)
    first[ROW_JSON_COLUMN] = json.dumps({**image, column: float(image[column])})
    spark.createDataFrame(rows, captured.schema).write.saveAsTable(f"{tampered}.captured_rows")
    differences = []
    reader = GoldReader(spark)
    for result, _ in simulations:
        differences += compare_database(
            spark,
            tampered,
            result.config.database,
            result.expected[0],
            max_differences=1000,
            skip=set(result.config.table_names),
            result=result,
            batch=0,
            databases=stream_databases(),
            reader=reader,
        ).differences
    spark.sql(f"drop database {tampered} cascade")
    found = "\n".join(differences)
    assert f"{tampered}.customers: 1 rows of no simulated source" in found
    assert f"{tampered}.customers.id: type bigint, contract int" in found
    assert "'x'" in found and "_cdc_op" in found
    assert "orders: " in found and " gold rows of " in found
    assert f"captured_rows {items.lower()}" in found and "('float'" in found
    # the checks of a whole relation are reported once per source database compared
    assert len(set(differences)) == 5, found


@pytest.mark.stream("batch1")
def test_second_batch_applies_incrementally(dbt_project, simulations, stream) -> None:  # type: ignore[no-untyped-def]
    bronze = dbt_project.layer("bronze")
    loads, history_written_by, view_created = stream.before(PART, "batch1")
    assert _history_written_by(dbt_project) != history_written_by, "new changes reach the history"
    # gold took the batch into its state; its published view, whose SQL did not change,
    # was left as it was (cdc.published_view)
    assert _view_created(dbt_project) == view_created
    [after] = dbt_project.sql(
        f"select count(distinct _load_id) as loads, count(*) as messages, "
        f"count(distinct _message_id) as distinct_messages from {bronze}.bronze_cdc_messages "
        f"where _source_file like '{dbt_project.landed_under(PART)}'"
    )
    assert after["loads"] == loads + 1, "the second run should load only new files"
    assert (
        after["messages"]
        == after["distinct_messages"]
        == sum(len(r.batches[0]) + len(r.batches[1]) for r, _ in simulations)
    )
    _assert_gold_matches(dbt_project, simulations, 1)


# ------------------------------------------------------------------ the event stream
def _with(simulations, option: str):  # type: ignore[no-untyped-def]
    """The simulations whose config sets `option` (truthy)."""
    return [(r, fmt) for r, fmt in simulations if getattr(r.config, option)]


@pytest.mark.stream("batch1")
def test_snapshot_forms_and_incremental_reads_reached_the_change_log(
    dbt_project, simulations
) -> None:  # type: ignore[no-untyped-def]
    """Guard: every `source.snapshot` form and the incremental reads were really read, and
    some incremental reads arrived after a change with a higher position (the chunk
    window), so the gold equality above covers them."""
    silver = dbt_project.layer("silver")
    for result, _ in _with(simulations, "incremental_snapshot_batches"):
        database = result.config.database
        rows = dbt_project.sql(
            f"select _cdc_op, _cdc_snapshot, _cdc_is_snapshot, count(*) as n "
            f"from {silver}.int_cdc__change_log where lower(_cdc_source_db) = lower('{database}') "
            f"group by 1, 2, 3"
        )
        seen = {(r["_cdc_op"], r["_cdc_snapshot"], r["_cdc_is_snapshot"]): r["n"] for r in rows}
        reads = sum(
            len(tx.changes) for batch in result.transactions for tx in batch if tx.incremental
        )
        assert reads > 0 and seen.get(("r", "incremental", True)) == reads, seen
        if result.config.snapshot_style == "boolean":
            assert ("r", "true", True) in seen and ("c", "false", False) in seen, seen
        else:
            assert ("r", "last", True) in seen and ("c", "false", False) in seen, seen
    [late] = dbt_project.sql(
        f"""
        select count(*) as n
        from {silver}.int_cdc__change_log as incremental_read
        inner join {silver}.int_cdc__change_log as streamed
            on incremental_read._cdc_source_id = streamed._cdc_source_id
            and incremental_read._kafka_topic = streamed._kafka_topic
            and incremental_read._kafka_offset > streamed._kafka_offset
            and incremental_read._cdc_position < streamed._cdc_position
        where incremental_read._cdc_snapshot = 'incremental' and not streamed._cdc_is_snapshot
        """
    )
    assert late["n"] > 0


def _expected_transactions(result):  # type: ignore[no-untyped-def]
    """{transaction id: (event count, {data collection: event count})} from the simulator."""
    expected = {}
    for batch in result.transactions:
        for tx in batch:
            if tx.seq in result.transaction_ids and not (tx.snapshot or tx.ddl):
                per_table: dict[str, int] = {}
                for change in tx.changes:
                    name = result.data_collections[change.table]
                    per_table[name] = per_table.get(name, 0) + 1
                expected[result.transaction_ids[tx.seq]] = (len(tx.changes), per_table)
    return expected


@pytest.mark.stream("batch1")
def test_transaction_metadata_matches_the_simulator(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """BEGIN for every transaction, END (event counts per data collection) for every one but
    the last (END waits for the next transaction), and the change events' transaction block."""
    silver = dbt_project.layer("silver")
    topics = ", ".join(f"'{result.config.server}.transaction'" for result, _ in simulations)
    databases = ", ".join(f"lower('{result.config.database}')" for result, _ in simulations)
    # one read of each relation for every simulation (the change log is a view of three)
    transactions = dbt_project.sql(
        f"select _kafka_topic, transaction_id, transaction_status, event_count, "
        f"data_collections from {silver}.stg_cdc__transactions where _kafka_topic in ({topics})"
    )
    change_counts = dbt_project.sql(
        f"select lower(_cdc_source_db) as database, _cdc_transaction_id, count(*) as n "
        f"from {silver}.int_cdc__change_log "
        f"where lower(_cdc_source_db) in ({databases}) and not _cdc_is_snapshot group by 1, 2"
    )
    checked = 0
    for result, _ in simulations:
        config = result.config
        rows = [r for r in transactions if r["_kafka_topic"] == f"{config.server}.transaction"]
        changes = [c for c in change_counts if c["database"] == config.database.lower()]
        if not config.transaction_metadata:
            assert rows == []
            if config.transaction_metadata is False and config.flavour != "oracle":
                assert [c["_cdc_transaction_id"] for c in changes] == [None]
            continue
        expected = _expected_transactions(result)
        last = result.transaction_ids[max(result.transaction_ids)]
        begins = sorted(r["transaction_id"] for r in rows if r["transaction_status"] == "BEGIN")
        assert begins == sorted(expected)
        ends = {
            r["transaction_id"]: (
                r["event_count"],
                {c["data_collection"]: c["event_count"] for c in json.loads(r["data_collections"])},
            )
            for r in rows
            if r["transaction_status"] == "END"
        }
        assert len(ends) == len(rows) - len(begins)
        assert ends == {i: counts for i, counts in expected.items() if i != last}
        assert {c["_cdc_transaction_id"]: c["n"] for c in changes} == {
            i: count for i, (count, _) in expected.items()
        }
        checked += 1
    assert checked == 3


def _expected_schema_changes(result):  # type: ignore[no-untyped-def]
    out = []
    for batch in result.transactions:
        for tx in batch:
            for ddl in tx.ddl:
                case = str if result.config.flavour == "sqlserver" else str.upper
                out.append(
                    (
                        ddl.kind,
                        result.data_collections[ddl.table].lower(),
                        [case(k) for k in ddl.spec.key],
                        [case(c) for c in ddl.spec.column_names],
                    )
                )
    return sorted(out)


@pytest.mark.stream("batch1")
def test_schema_change_topic_matches_the_simulator(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    silver = dbt_project.layer("silver")
    sources = _with(simulations, "schema_change_topic")
    assert len(sources) == 4
    for result, _ in sources:
        rows = dbt_project.sql(
            f"select change_type, _cdc_source_id, primary_key_columns, columns_json, ddl "
            f"from {silver}.stg_cdc__schema_changes where _kafka_topic = '{result.config.server}'"
        )
        actual = sorted(
            (
                r["change_type"],
                r["_cdc_source_id"],
                r["primary_key_columns"],
                [
                    c["name"]
                    for c in sorted(json.loads(r["columns_json"]), key=lambda c: int(c["position"]))
                ],
            )
            for r in rows
        )
        expected = _expected_schema_changes(result)
        assert actual == expected
        assert len(expected) == 3 + 2 * (result.config.evolve_batch is not None)
        assert all((r["ddl"] is None) == (result.config.flavour == "sqlserver") for r in rows)


@pytest.mark.stream("batch1")
def test_an_added_column_waits_in_the_overflow_until_declared(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """A column added mid-stream breaks nothing and loses nothing: typed silver and gold keep
    it in `_cdc_undeclared_columns` with the source's value."""
    gold = dbt_project.layer("gold")
    table, column = ADDED_COLUMN[0], ADDED_COLUMN[1].name
    sources = _with(simulations, "evolve_batch")
    assert len(sources) == 3
    values = 0
    for result, _ in sources:
        rows = dbt_project.sql(
            f"select id, _cdc_undeclared_columns from {gold}.{table} "
            f"where lower(_cdc_source_db) = lower('{result.config.database}')"
        )
        actual = {
            (r["id"],): json.loads(r["_cdc_undeclared_columns"] or "{}").get(column) for r in rows
        }
        wanted = {
            key: None if row[column] is None else str(row[column])
            for key, row in result.expected[-1][table].items()
        }
        assert actual == wanted
        values += sum(v is not None for v in wanted.values())
    assert values > 0


@pytest.mark.stream("batch1")
def test_keys_of_undeclared_tables_come_from_the_schema_change_topic(
    dbt_project, simulations
) -> None:  # type: ignore[no-untyped-def]
    """Messages without a Kafka key, of tables no contract declares: `captured_rows` keys them
    by the schema-change topic's primaryKeyColumnNames (else each row image would be a key)."""
    gold = dbt_project.layer("gold")
    checked = 0
    for result, fmt in simulations:
        for table, physical in result.config.table_names.items():
            assert fmt == "value_lines"  # no message keys
            rows = dbt_project.sql(
                f"select _cdc_key from {gold}.captured_rows "
                f"where lower(_cdc_source_db) = lower('{result.config.database}') "
                f"and lower(_cdc_source_table) = '{physical}'"
            )
            wanted = sorted(
                canonical_key(table, row) for row in result.expected[-1][table].values()
            )
            assert sorted(r["_cdc_key"] for r in rows) == wanted
            assert len(TABLES[table].key) >= 1 and wanted
            checked += 1
    assert checked == 3


@pytest.mark.stream("batch1")
def test_the_quiet_source_warning_spares_replayed_sources(dbt_project, stream: Stream) -> None:  # type: ignore[no-untyped-def]
    """Finding 6 of issue #31: the build of simulated sources listed as replayed (as `make
    demo` lists its own) does not warn of them, whose event times are years old by design,
    and still warns of the source not listed, as of a real source gone quiet."""
    quiet = stream.data_test("batch1", "cdc_quiet_sources_stg_cdc__sync_progress")
    assert quiet.status == "warn"
    servers = {f"e2e{index}" for index in range(len(SOURCES))}
    warned = {
        str(row["sync_source"])
        for row in quiet.rows(dbt_project)
        if str(row["sync_source"]).split(".")[0] in servers
    }
    topics = {
        str(row["sync_source"])
        for row in dbt_project.sql(
            f"select sync_source from {dbt_project.layer('silver')}.stg_cdc__sync_progress"
        )
        if str(row["sync_source"]).split(".")[0] in servers
    }
    quiet_server = _configs()[QUIET].server
    assert warned == {topic for topic in topics if topic.split(".")[0] == quiet_server}
    assert len(warned) >= 3 and len(topics) > len(warned)


@pytest.mark.stream("noop")
def test_a_run_without_new_files_changes_nothing(dbt_project, simulations, stream) -> None:  # type: ignore[no-untyped-def]
    snapshot, history_written_by = stream.before(PART, "noop")
    assert _customers(dbt_project) == snapshot
    _assert_gold_matches(dbt_project, simulations, 1)
    # nothing new: the history is left as the second batch's run wrote it (its changes in
    # the delta partition, resolved when read: the stream's batch1 keeps deltas), and is right
    assert _history_written_by(dbt_project) == history_written_by
    _assert_customer_history_matches(dbt_project, simulations)


@pytest.mark.stream("full_refresh")
def test_full_refresh_gives_what_the_incremental_runs_gave(
    dbt_project, simulations, stream
) -> None:  # type: ignore[no-untyped-def]
    before, history_written_by, view_created = stream.before(PART, "full_refresh")
    assert _history_written_by(dbt_project) != history_written_by, "a full refresh rebuilds it"
    assert _view_created(dbt_project) != view_created, "and publishes gold's view again"
    assert gold_rows_of(dbt_project, PART, GOLD_TABLES) == before
    _assert_gold_matches(dbt_project, simulations, 1)


@pytest.mark.stream("full_refresh")
def test_every_model_and_column_is_documented(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """The YAML describes every model and exactly the columns each relation has."""
    import json

    manifest = json.loads((dbt_project.target_path / "manifest.json").read_text())
    problems = []
    for node in manifest["nodes"].values():
        if node["resource_type"] != "model" or node["package_name"] != "cdc_lakehouse":
            continue
        name = node["name"]
        if not node["description"].strip():
            problems.append(f"{name}: no description")
        documented = {c: v["description"] for c, v in node["columns"].items()}
        problems += [f"{name}.{c}: no description" for c, d in documented.items() if not d.strip()]
        relation = f"{node['schema']}.{node['alias']}"
        actual = {f.name.lower() for f in dbt_project.spark.table(relation).schema.fields}
        if set(documented) != actual:
            problems.append(
                f"{name}: undocumented {sorted(actual - set(documented))}, "
                f"documented but absent {sorted(set(documented) - actual)}"
            )
    assert not problems, "\n".join(problems)


@pytest.mark.stream("full_refresh")
def test_soft_deleted_orders_stay_flagged(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """`orders` uses cdc_delete_mode='soft': every deleted key stays, flagged, with its time."""
    from workbench.oracle_check import keys_ever_present

    gold = dbt_project.layer("gold")
    for result, _ in simulations:
        if "orders" in result.config.table_names:
            continue
        rows = dbt_project.sql(
            f"select order_id, _cdc_deleted_at from {gold}.orders where _cdc_is_deleted "
            f"and lower(_cdc_source_db) = lower('{result.config.database}')"
        )
        deleted = {(row["order_id"],) for row in rows}
        gone = keys_ever_present(result, "orders") - set(result.expected[-1]["orders"])
        assert gone, "the simulation should delete some orders"
        assert deleted == gone
        assert all(row["_cdc_deleted_at"] is not None for row in rows)


@pytest.mark.stream("full_refresh")
def test_customer_history_matches_the_source_history(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    _assert_customer_history_matches(dbt_project, simulations)


def _assert_customer_history_matches(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    from workbench.oracle_check import expected_history
    from workbench.simulator import TABLES

    gold = dbt_project.layer("gold")
    columns = TABLES["customers"].column_names
    for result, _ in simulations:
        rows = dbt_project.sql(
            f"select {', '.join(columns)}, is_current, valid_from, valid_to "
            f"from {gold}.customer_history "
            f"where lower(_cdc_source_db) = lower('{result.config.database}') "
            f"order by id, _cdc_valid_from_position"
        )
        actual: dict[tuple, list[dict]] = {}
        for row in rows:
            actual.setdefault((row["id"],), []).append(row)
        wanted = expected_history(result, "customers")
        assert actual.keys() == wanted.keys()
        current = result.expected[-1]["customers"]
        for key, versions in wanted.items():
            got = actual[key]
            assert [{c: v[c] for c in columns} for v in got] == [
                {c: v.get(c) for c in columns} for v in versions
            ], key
            assert [v["is_current"] for v in got] == [False] * (len(got) - 1) + [key in current]
            assert all(
                a["valid_to"] == b["valid_from"] for a, b in zip(got, got[1:], strict=False)
            ), key


@pytest.mark.stream("full_refresh")
@pytest.mark.parametrize("database", ["E2E3_SQLSERVER", "E2E5_DB2"])
def test_scaffolding_from_bronze_recovers_the_contract(dbt_project, simulations, database) -> None:  # type: ignore[no-untyped-def]
    """The contract the scaffolder reads off the messages equals the hand-written one, by
    dbt names and types; it keeps each column under the source's own name (Db2 carries
    upper case), which the hand-written contract matches without regard to case."""
    import yaml

    from cdc_tools.scaffold import contract_from_bronze
    from workbench.consumer import CONSUMER_DIR

    contract = contract_from_bronze(
        dbt_project.spark,
        "customers",
        "inventory",
        schema_prefix=dbt_project.schema,
        database=database,
    )
    declared = yaml.safe_load(
        (CONSUMER_DIR / "models" / "silver" / "inventory" / "_inventory__models.yml").read_text()
    )
    [model] = [m for m in declared["models"] if m["name"] == "stg_inventory__customers"]
    wanted = {c["name"]: c["data_type"] for c in model["columns"] if "data_type" in c}
    assert {c.gold_name: c.data_type for c in contract.columns} == wanted
    assert all(c.name.lower() == c.gold_name for c in contract.columns)
    assert contract.gold_key == ["id"]
    assert [k.lower() for k in contract.key] == ["id"]
    assert contract.silver_model == "stg_inventory__customers"


@pytest.mark.stream("after")  # rebuilds `customers` with a new column: after every other step
def test_declaring_the_added_column_backfills_gold_from_history(
    dbt_project, simulations, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """Declare the added column in the contract (a copy of the project) and rebuild the typed
    model and gold with --full-refresh: gold equals the source including the new column."""
    import re

    table, column = ADDED_COLUMN
    project = dbt_project.copy_project(tmp_path / "project")
    contract = project / "models" / "silver" / "inventory" / "_inventory__models.yml"
    text = contract.read_text()
    declared = (
        "  - name: is_active\n    description: Whether the customer is active.\n"
        "    data_type: boolean\n"
    )
    assert declared in text
    contract.write_text(
        text.replace(
            declared,
            declared + f"  - name: {column.name}\n    description: Added mid-stream.\n"
            "    data_type: int\n",
        )
    )
    model = project / "models" / "gold" / "inventory" / f"{table}.sql"
    sql = model.read_text()
    assert re.search(r"\n\s+is_active,\n", sql)
    model.write_text(re.sub(r"\n(\s+)is_active,\n", rf"\n\1is_active,\n\1{column.name},\n", sql))
    dbt_project.run(
        "build", "--full-refresh", "--select", f"stg_inventory__{table}", table,
        project_dir=project, vars=step_vars("after"),
    )  # fmt: skip
    columns = {table: [*TABLES[table].column_names, column.name]}
    _assert_gold_matches(dbt_project, simulations, 1, columns=columns)
    gold = dbt_project.layer("gold")
    [row] = dbt_project.sql(f"select count({column.name}) as n from {gold}.{table}")
    assert row["n"] > 0


def test_the_sources_cover_every_value_encoding(simulations) -> None:  # type: ignore[no-untyped-def]
    """Guard for the tests above: between them the sources send every column encoding of
    ENVELOPES.md §1, each one with and without the schema wrapper where the connector
    allows it (Kafka Connect temporal types need the schema: their JSON values equal
    io.debezium.time.Date/Time/Timestamp), and the compared states hold non-null values."""
    from workbench.simulator import TABLES, column_encoding

    sent: dict[tuple[str, str | None], set[bool]] = {}
    for result, _ in simulations:
        config = result.config
        for table, spec in TABLES.items():
            values = [row for state in result.expected for row in state[table].values()]
            for column in spec.columns:
                assert any(row[column.name] is not None for row in values), (
                    config.database,
                    table,
                    column.name,
                )
                encoding = column_encoding(column, config)
                sent.setdefault((encoding.type, encoding.name), set()).add(config.schemas_enable)
    both = {True, False}
    for semantic in (
        "io.debezium.data.Xml",
        "io.debezium.time.ZonedTimestamp",
        "io.debezium.time.Date",
        "io.debezium.time.Time",
        "io.debezium.time.MicroTime",
        "io.debezium.time.NanoTime",
        "io.debezium.time.Timestamp",
        "io.debezium.time.MicroTimestamp",
        "io.debezium.time.NanoTimestamp",
        "org.apache.kafka.connect.data.Decimal",
    ):
        assert {w for (_, name), ws in sent.items() if name == semantic for w in ws} == both
    for semantic in ("Date", "Time", "Timestamp"):
        assert sent[(_connect_type(semantic), f"org.apache.kafka.connect.data.{semantic}")]
    assert sent[("float64", None)] == both  # decimal.handling.mode=double
    assert sent[("string", None)] == both  # =string (and plain strings)


def _connect_type(semantic: str) -> str:
    return "int32" if semantic == "Date" else "int64"
