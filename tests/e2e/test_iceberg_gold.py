"""Gold on Apache Iceberg: the `iceberg` target runs the MERGE INTO path, and gold equals the
simulators' oracle.

Five connector families land two batches: three Debezium relational connectors (Oracle, SQL
Server with the schema wrapper, Db2), Canal flat messages and Maxwell's daemon (kcat `-J`
records keyed as Maxwell keys them), the last two with key changes, a table without a primary
key, truncates (Canal) and redelivered messages. One process of its own (why: the catalog is
a static setting, and the pytest workers hold a session on the `local` target) runs with
`CDC_GOLD_FILE_FORMAT=iceberg` alone (the profile's target follows it): a full build on the
first batch, an incremental build on the second, then `dbt run-operation cdc_expire_snapshots`.
After each, gold equals the source databases (`compare_database` for the Debezium sources;
`captured_rows` against the Canal and Maxwell oracles, as tests/e2e/test_alibaba_sources.py
compares them). It prints what it saw as one JSON line; the tests assert on it: the state
tables of gold and history are Iceberg tables, the second build merged (the state's run record
counts a `merge`), and the expiry left one snapshot per table and gold unchanged.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cdc_tools.local_spark import REPO_ROOT
from tests.conftest import process_env
from workbench.gold_runs import properties_of, run_record
from workbench.oracle_check import COMPARED_MODELS
from workbench.simulator import SimConfig, simulate, write_batch
from workbench.simulator.alibaba_sim import AlibabaSimResult, simulate_canal, simulate_maxwell
from workbench.simulator.alibaba_source import AlibabaSimConfig

pytestmark = pytest.mark.spark

SCHEMA = "t_iceberg"
GOLD = f"{SCHEMA}_gold"
SELECTION = [*COMPARED_MODELS, "+customer_history"]
# the state tables of the models built: cdc_current_state and cdc_history
STATE_TABLES = ("captured_rows", "customers", "orders", "order_lines", "customer_history")
CONFIGS = [
    SimConfig(seed=601, flavour="oracle", database="ICE_ORA", server="ice1", transactions=25),
    SimConfig(
        seed=602,
        flavour="sqlserver",
        database="ICE_MSS",
        server="ice2",
        transactions=25,
        schemas_enable=True,
    ),
    SimConfig(seed=603, flavour="db2", database="ICE_DB2", server="ice3", transactions=25),
]
REPORT = "ICEBERG_REPORT "


def _other_families() -> list[AlibabaSimResult]:
    """Canal and Maxwell sources (their tables: items, accounts, events)."""

    def config(seed: int, database: str, **options: float) -> AlibabaSimConfig:
        return AlibabaSimConfig(
            seed=seed, database=database, batches=2, transactions=20, redeliver_fraction=0.1,
            **options,  # type: ignore[arg-type]
        )  # fmt: skip

    return [
        simulate_canal(config(623, "ice_canal", pk_change_probability=0.2)),
        # Maxwell writes nothing for a TRUNCATE
        simulate_maxwell(
            config(613, "ice_maxwell", truncate_probability=0.0, pk_change_probability=0.2)
        ),
    ]


def _scenario(landing: Path, target: Path) -> dict[str, object]:
    """Runs in the process of its own: two builds and the expiry, checked after each."""
    from cdc_tools.dbt_invoke import run_dbt
    from cdc_tools.local_spark import get_local_spark
    from tests.conftest import DbtProject
    from tests.e2e.test_alibaba_sources import _compare_table, _gold
    from workbench.oracle_check import GoldReader, compare_database

    results = [simulate(config) for config in CONFIGS]
    others = _other_families()
    databases = [config.database for config in CONFIGS] + [r.config.database for r in others]
    report: dict[str, object] = {}
    project = DbtProject(
        spark=get_local_spark(), schema=SCHEMA, landing=landing, target_path=target
    )

    def other_differences(batch: int) -> list[str]:
        """captured_rows of the Canal and Maxwell sources against their oracles."""
        tables = [table for result in others for table in result.expected[batch]]
        gold = _gold(project, tables)
        return [
            difference
            for result in others
            for table, expected in sorted(result.expected[batch].items())
            for difference in _compare_table(project, table, expected, gold=gold[table])
        ]

    def differences(batch: int) -> list[str]:
        spark = get_local_spark()
        reader = GoldReader(spark)
        found: list[str] = []
        for config, result in zip(CONFIGS, results, strict=True):
            found += compare_database(
                spark, GOLD, config.database, result.expected[batch], result=result,
                batch=batch, databases=databases, reader=reader,
            ).differences  # fmt: skip
        return found

    def snapshots() -> dict[str, int]:
        spark = get_local_spark()
        return {
            table: spark.sql(f"select count(*) from {GOLD}.{table}__cdc_state.snapshots").first()[0]
            for table in STATE_TABLES
        }

    for batch in (0, 1):
        for config, result in zip(CONFIGS, results, strict=True):
            fmt = "kcat" if config.schemas_enable else "value_lines"
            write_batch(result.batches[batch], landing / config.database, batch, fmt)
        for other in others:
            write_batch(other.batches[batch], landing / other.config.database, batch, "kcat")
        run_dbt(["run", *SELECTION], target_path=target)
        report[f"differences_{batch}"] = differences(batch)
        report[f"other_families_{batch}"] = other_differences(batch)
        report[f"other_rows_{batch}"] = {
            table: len(expected.rows)
            for result in others
            for table, expected in result.expected[batch].items()
        }

    spark = get_local_spark()
    report["providers"] = {
        table: {
            row["col_name"]: row["data_type"]
            for row in spark.sql(f"describe table extended {GOLD}.{table}__cdc_state").collect()
        }.get("Provider")
        for table in STATE_TABLES
    }
    report["published"] = {
        table: spark.sql(f"show tables in {GOLD} like '{table}'").count() for table in STATE_TABLES
    }
    # the runs of each kind since the state was built, as its properties count them
    report["runs"] = {
        table: dict(
            run_record(
                properties_of(spark.sql(f"show tblproperties {GOLD}.{table}__cdc_state").collect())
            ).counts
        )
        for table in STATE_TABLES
        if table != "customer_history"
    }
    report["snapshots_before"] = snapshots()
    run_dbt(
        ["run-operation", "cdc_expire_snapshots", "--args", "{older_than_days: 0}"],
        target_path=target,
    )
    report["snapshots_after"] = snapshots()
    report["differences_expired"] = differences(1)
    report["other_families_expired"] = other_differences(1)
    return report


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    jars = Path(os.environ.get("CDC_SPARK_JARS_DIR", REPO_ROOT / "jars"))
    if not list(jars.glob("iceberg-spark-runtime-*.jar")):
        pytest.fail(f"no Iceberg runtime in {jars}: run `make setup` (it fetches the jars)")
    tmp = tmp_path_factory.mktemp("iceberg")
    env = process_env(
        tmp / "spark", SCHEMA, tmp / "landing",
        CDC_GOLD_FILE_FORMAT="iceberg", CDC_SPARK_JARS_DIR=str(jars),
    )  # fmt: skip
    env.pop("DBT_TARGET", None)  # the format chooses the target (profiles/profiles.yml)
    command = [sys.executable, "-m", "tests.e2e.test_iceberg_gold", str(tmp)]
    done = subprocess.run(
        command, env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=1500
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith(REPORT)]
    assert done.returncode == 0 and lines, (done.stdout[-4000:], done.stderr[-4000:])
    yield json.loads(lines[-1].removeprefix(REPORT))


# Iceberg has no 1- or 2-byte integers: a smallint or tinyint column of the state is stored,
# and published, as int (docs/gold.md, "Table formats"). Every other difference fails.
WIDENED = re.compile(r": type int, contract (smallint|tinyint)$")


def _not_widened(differences: list[str]) -> list[str]:
    return [d for d in differences if not WIDENED.search(d)]


def test_gold_equals_the_sources_after_a_full_and_an_incremental_build(report: dict) -> None:
    assert _not_widened(report["differences_0"]) == []
    assert _not_widened(report["differences_1"]) == []


def test_canal_and_maxwell_sources_equal_their_oracles(report: dict) -> None:
    """captured_rows (an Iceberg state) holds exactly each Canal and Maxwell table's rows,
    after the full build, the incremental one and the snapshot expiry; every table has
    rows to compare."""
    for batch in ("0", "1"):
        assert report[f"other_families_{batch}"] == []
        rows = report[f"other_rows_{batch}"]
        assert len(rows) == 6 and min(rows.values()) >= 2, rows
    assert report["other_families_expired"] == []


def test_only_small_integer_columns_are_widened(report: dict) -> None:
    widened = {d.split(":")[0] for d in report["differences_1"] if WIDENED.search(d)}
    assert widened == {f"{GOLD}.orders.quantity"}, report["differences_1"]


def test_gold_and_history_state_tables_are_iceberg_tables(report: dict) -> None:
    assert report["providers"] == dict.fromkeys(STATE_TABLES, "iceberg")
    assert report["published"] == dict.fromkeys(STATE_TABLES, 1)


def test_the_incremental_build_merged_into_the_state(report: dict) -> None:
    assert report["runs"] == {
        table: {"full": 1, "merge": 1} for table in STATE_TABLES if table != "customer_history"
    }


def test_snapshot_expiry_keeps_one_snapshot_and_gold(report: dict) -> None:
    before, after = report["snapshots_before"], report["snapshots_after"]
    # a merge run adds snapshots; history's second run may rebuild its state (one snapshot)
    assert min(n for table, n in before.items() if table != "customer_history") > 1, before
    assert after == dict.fromkeys(STATE_TABLES, 1)
    assert _not_widened(report["differences_expired"]) == []


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    outcome = _scenario(folder / "landing", folder / "target")
    print(REPORT + json.dumps(outcome), flush=True)
