"""End to end: simulator -> landing files -> dbt build -> gold equals the source database.

Nine simulated source databases share one landing folder and one `dbt build`: the three
Debezium relational flavours (Oracle, SQL Server, Db2), each with and without the schema
wrapper, alternating the two landing formats, and between them every
`decimal.handling.mode` (precise, double, string) and `time.precision.mode` (adaptive,
connect): every column value encoding of ENVELOPES.md §1 reaches gold. A second batch of
files on top of the first is then loaded incrementally, and gold must equal the source
state (as a consumer decodes it, see cdc_tools.simulator.expected) after each batch.
"""

from __future__ import annotations

import pytest

from cdc_tools.oracle_check import compare_database
from cdc_tools.simulator import SimConfig, SimResult, simulate, write_batch

pytestmark = pytest.mark.spark

SOURCES = [
    # (flavour, schemas_enable, landing format, decimal.handling.mode, time.precision.mode)
    ("oracle", False, "value_lines", "precise", "adaptive"),
    ("oracle", True, "kcat", "string", "connect"),
    ("sqlserver", False, "kcat", "precise", "adaptive"),
    ("sqlserver", True, "value_lines", "precise", "connect"),
    ("db2", False, "value_lines", "precise", "adaptive"),
    ("db2", True, "kcat", "precise", "adaptive"),
    ("oracle", False, "kcat", "double", "adaptive"),
    ("sqlserver", True, "kcat", "double", "adaptive"),
    ("db2", False, "value_lines", "string", "adaptive"),
]


@pytest.fixture(scope="module")
def simulations() -> list[tuple[SimResult, str]]:
    results = []
    for index, (flavour, wrapped, fmt, decimals, times) in enumerate(SOURCES):
        config = SimConfig(
            seed=100 + index,
            flavour=flavour,
            database=f"E2E{index}_{flavour.upper()}",
            server=f"e2e{index}",
            schemas_enable=wrapped,
            batches=2,
            transactions=50 if index < 6 else 30,
            decimal_handling_mode=decimals,
            time_precision_mode=times,
        )
        results.append((simulate(config), fmt))
    return results


def _assert_gold_matches(dbt_project, simulations, batch: int) -> None:  # type: ignore[no-untyped-def]
    failures = []
    for result, _ in simulations:
        outcome = compare_database(
            dbt_project.spark,
            dbt_project.layer("gold"),
            result.config.database,
            result.expected[batch],
        )
        assert sum(outcome.rows.values()) > 0 or not any(result.expected[batch].values())
        if not outcome.ok:
            failures.append(f"{result.config.database}: " + "\n  ".join(outcome.differences))
    assert not failures, "gold differs from the simulated source:\n" + "\n".join(failures)


def test_first_batch_builds_gold_equal_to_the_source(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    for result, fmt in simulations:
        write_batch(result.batches[0], dbt_project.landing / result.config.database, 0, fmt)
    dbt_project.run("build")
    _assert_gold_matches(dbt_project, simulations, 0)


def test_every_message_is_accounted_for(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    bronze = dbt_project.layer("bronze")
    silver = dbt_project.layer("silver")
    sent = sum(len(result.batches[0]) for result, _ in simulations)
    [counts] = dbt_project.sql(
        f"select (select count(*) from {bronze}.bronze_cdc_messages) as bronze, "
        f"(select count(*) from {silver}.stg_cdc__messages) as silver, "
        f"(select count(*) from {silver}.cdc_quarantine) as quarantined"
    )
    assert counts == {"bronze": sent, "silver": sent, "quarantined": 0}


def test_second_batch_applies_incrementally(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    bronze = dbt_project.layer("bronze")
    [before] = dbt_project.sql(
        f"select count(distinct _load_id) as loads from {bronze}.bronze_cdc_messages"
    )
    for result, fmt in simulations:
        write_batch(result.batches[1], dbt_project.landing / result.config.database, 1, fmt)
    dbt_project.run("build")
    [after] = dbt_project.sql(
        f"select count(distinct _load_id) as loads, count(*) as messages, "
        f"count(distinct _message_id) as distinct_messages from {bronze}.bronze_cdc_messages"
    )
    assert after["loads"] == before["loads"] + 1, "the second run should load only new files"
    assert (
        after["messages"]
        == after["distinct_messages"]
        == sum(len(r.batches[0]) + len(r.batches[1]) for r, _ in simulations)
    )
    _assert_gold_matches(dbt_project, simulations, 1)


def test_a_run_without_new_files_changes_nothing(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    gold = dbt_project.layer("gold")
    snapshot = dbt_project.sql(f"select * from {gold}.customers order by _cdc_source_id, id")
    dbt_project.run("build")
    assert (
        dbt_project.sql(f"select * from {gold}.customers order by _cdc_source_id, id") == snapshot
    )
    _assert_gold_matches(dbt_project, simulations, 1)


def test_full_refresh_gives_what_the_incremental_runs_gave(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    gold = dbt_project.layer("gold")
    tables = ("customers", "orders", "order_lines", "captured_rows")
    columns = "* except (_loaded_at)"
    before = {t: dbt_project.sql(f"select {columns} from {gold}.{t} order by all") for t in tables}
    dbt_project.run("build", "--full-refresh", "--select", "gold")
    after = {t: dbt_project.sql(f"select {columns} from {gold}.{t} order by all") for t in tables}
    assert after == before
    _assert_gold_matches(dbt_project, simulations, 1)


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


def test_soft_deleted_orders_stay_flagged(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    """`orders` uses cdc_delete_mode='soft': every deleted key stays, flagged, with its time."""
    from cdc_tools.oracle_check import keys_ever_present

    gold = dbt_project.layer("gold")
    for result, _ in simulations:
        rows = dbt_project.sql(
            f"select order_id, _cdc_deleted_at from {gold}.orders where _cdc_is_deleted "
            f"and lower(_cdc_source_db) = lower('{result.config.database}')"
        )
        deleted = {(row["order_id"],) for row in rows}
        gone = keys_ever_present(result, "orders") - set(result.expected[-1]["orders"])
        assert gone, "the simulation should delete some orders"
        assert deleted == gone
        assert all(row["_cdc_deleted_at"] is not None for row in rows)


def test_customer_history_matches_the_source_history(dbt_project, simulations) -> None:  # type: ignore[no-untyped-def]
    from cdc_tools.oracle_check import expected_history
    from cdc_tools.simulator import TABLES

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
            assert [{c: v[c] for c in columns} for v in got] == versions, key
            assert [v["is_current"] for v in got] == [False] * (len(got) - 1) + [key in current]
            assert all(
                a["valid_to"] == b["valid_from"] for a, b in zip(got, got[1:], strict=False)
            ), key


@pytest.mark.parametrize("database", ["E2E3_SQLSERVER", "E2E5_DB2"])
def test_scaffolding_from_bronze_recovers_the_contract(dbt_project, simulations, database) -> None:  # type: ignore[no-untyped-def]
    """The contract the scaffolder reads off the messages equals the hand-written one."""
    import yaml

    from cdc_tools.scaffold import REPO_ROOT, contract_from_bronze

    contract = contract_from_bronze(
        dbt_project.spark,
        "customers",
        "inventory",
        schema_prefix=dbt_project.schema,
        database=database,
    )
    declared = yaml.safe_load(
        (REPO_ROOT / "models" / "silver" / "inventory" / "_inventory__models.yml").read_text()
    )
    [model] = [m for m in declared["models"] if m["name"] == "stg_inventory__customers"]
    wanted = {c["name"]: c["data_type"] for c in model["columns"] if "data_type" in c}
    assert {c.name: c.data_type for c in contract.columns} == wanted
    assert contract.key == ["id"]
    assert contract.silver_model == "stg_inventory__customers"


def test_the_sources_cover_every_value_encoding(simulations) -> None:  # type: ignore[no-untyped-def]
    """Guard for the tests above: between them the sources send every column encoding of
    ENVELOPES.md §1, each one with and without the schema wrapper where the connector
    allows it (Kafka Connect temporal types need the schema: their JSON values equal
    io.debezium.time.Date/Time/Timestamp), and the compared states hold non-null values."""
    from cdc_tools.simulator import TABLES, column_encoding

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
