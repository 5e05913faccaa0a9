"""This project as a dbt package: a host dbt project of its own installs it and builds gold.

The host project is written in a temporary folder as the README ("Install as a
package") tells a user to: a `packages.yml` pointing at this repository, its own
`dbt_project.yml` (the vars naming its typed change logs, the dispatch that puts its macros
and this package's before dbt's), two source-table contracts in its own YAML (a Debezium
`customers` table, every type of the simulated connector, and a Canal `accounts` table with
a composite key), their typed change logs (one line of SQL each) and two gold models of its
own. `dbt deps` installs the package (a local package: no network), `dbt build` runs the
package's bronze and silver and the host's models on simulated sources: a SQL Server
Debezium connector and Canal, both redelivering messages, with truncates and key changes.
After each of two batches (the second an incremental run) the host's gold equals the
simulators' oracles (the source database's state, kept by executing the statements, never
by replaying the messages); the package's example tables are not built; the host's own
`spark__cdc_after_staging` (a package macro dispatched in the namespace `cdc_lakehouse`)
is the one the package's materialization called, for both gold models.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from cdc_tools.dbt_invoke import run_dbt
from cdc_tools.local_spark import REPO_ROOT
from tests.conftest import DbtProject
from workbench.consumer import CONSUMER_DIR
from workbench.simulator import TABLES, SimConfig, simulate
from workbench.simulator.alibaba_sim import AlibabaSimResult, simulate_canal
from workbench.simulator.alibaba_source import AlibabaSimConfig
from workbench.simulator.landing import write_batch
from workbench.simulator.simulation import SimResult

pytestmark = pytest.mark.spark

HOST = "shop_host"
DEBEZIUM_DB = "HOSTDB"
CANAL_DB = "host_canal"
# the line the host's own spark__cdc_after_staging logs (tests/e2e: the dispatch override)
OVERRIDE_LOG = "shop_host cdc_after_staging:"

# The consumer project's contract of `customers` (integration_tests/), written by the
# host as its own: the simulated table's columns with their types and encodings.
_EXAMPLE_CONTRACTS = CONSUMER_DIR / "models" / "silver" / "inventory" / "_inventory__models.yml"

ACCOUNTS_COLUMNS = {
    "region": "string",
    "account_no": "bigint",
    "owner": "string",
    "balance": "double",
    "opened": "date",
}


def _customers_contract() -> dict:
    models = yaml.safe_load(_EXAMPLE_CONTRACTS.read_text())["models"]
    example = next(m for m in models if m["name"] == "stg_inventory__customers")
    columns = [c for c in example["columns"] if not c["name"].startswith("_")]
    return {
        "name": "stg_crm__customers",
        "description": "Typed change log of the CRM's customers (Debezium, SQL Server).",
        "config": {
            "meta": {
                "cdc_source": {
                    "database": DEBEZIUM_DB,
                    "schema": "inventory",
                    "table": "customers",
                },
                "cdc_key": ["id"],
            }
        },
        "columns": columns,
    }


def _accounts_contract() -> dict:
    return {
        "name": "stg_store__accounts",
        "description": "Typed change log of the store's accounts (Canal flat messages).",
        "config": {
            "meta": {
                "cdc_source": {"database": CANAL_DB, "schema": "*", "table": "accounts"},
                "cdc_key": ["region", "account_no"],
            }
        },
        "columns": [{"name": n, "data_type": t} for n, t in ACCOUNTS_COLUMNS.items()],
    }


TYPED_SQL = (
    "{{ config(materialized='cdc_incremental', incremental_strategy='append', "
    "on_schema_change='fail') }}\n\n{{ cdc_lakehouse.cdc_typed_change_log() }}\n"
)


def _gold_sql(typed_model: str, key: list[str], columns: list[str]) -> str:
    unique_key = ", ".join(f"'{k}'" for k in ["_cdc_source_id", *key])
    metadata = [
        "_cdc_op", "_cdc_connector", "_cdc_source_id", "_cdc_source_db", "_cdc_key",
        "_cdc_position", "_cdc_sort_key", "_cdc_source_ts", "_cdc_undeclared_columns",
        "_cdc_error_reason", "_loaded_at",
    ]  # fmt: skip
    listed = ",\n".join(f"        {column}" for column in [*columns, *metadata])
    return (
        f"{{{{ config(materialized='cdc_current_state', unique_key=[{unique_key}]) }}}}\n\n"
        f"with\n\nchanges as (\n\n    select * from {{{{ ref('{typed_model}') }}}}\n\n),\n\n"
        f"final as (\n\n    select\n{listed}\n    from changes\n\n)\n\nselect * from final\n"
    )


AFTER_STAGING_MACRO = """{% macro spark__cdc_after_staging(relation) %}
    {#- the host's own extension point: found first through its dispatch config -#}
    {{ log("OVERRIDE_LOG " ~ relation.identifier, info=True) }}
    {{ return('') }}
{% endmacro %}
""".replace("OVERRIDE_LOG", OVERRIDE_LOG)


def write_host_project(root: Path, package_path: Path = REPO_ROOT) -> Path:
    """The host project of the README's section, in `root`; returns `root`."""
    customers = _customers_contract()
    customer_columns = [c["name"] for c in customers["columns"]]
    files = {
        "packages.yml": yaml.safe_dump({"packages": [{"local": str(package_path)}]}),
        "dbt_project.yml": yaml.safe_dump(
            {
                "name": HOST,
                "version": "1.0.0",
                "config-version": 2,
                "profile": "cdc_spark",
                "vars": {"cdc_typed_change_logs": ["stg_crm__customers", "stg_store__accounts"]},
                "dispatch": [
                    {"macro_namespace": "cdc_lakehouse", "search_order": [HOST, "cdc_lakehouse"]},
                    {"macro_namespace": "dbt", "search_order": [HOST, "cdc_lakehouse", "dbt"]},
                ],
                "models": {
                    # a package model the host does without
                    "cdc_lakehouse": {"gold": {"captured_rows": {"+enabled": False}}},
                    HOST: {
                        "+file_format": "parquet",
                        "staging": {"+schema": "silver"},
                        "marts": {"+schema": "gold"},
                    },
                },
            },
            sort_keys=False,
        ),
        "models/staging/_staging__models.yml": yaml.safe_dump(
            {"version": 2, "models": [customers, _accounts_contract()]}, sort_keys=False
        ),
        "models/staging/stg_crm__customers.sql": TYPED_SQL,
        "models/staging/stg_store__accounts.sql": TYPED_SQL,
        "models/marts/_marts__models.yml": yaml.safe_dump(
            {
                "version": 2,
                "models": [
                    {
                        "name": "crm_customers",
                        "description": "Current customers of the CRM.",
                        "data_tests": [
                            {
                                "cdc_lakehouse.cdc_unique_key": {
                                    "arguments": {"columns": ["_cdc_source_id", "id"]}
                                }
                            }
                        ],
                    },
                    {"name": "store_accounts", "description": "Current accounts of the store."},
                ],
            },
            sort_keys=False,
        ),
        "models/marts/crm_customers.sql": _gold_sql("stg_crm__customers", ["id"], customer_columns),
        "models/marts/store_accounts.sql": _gold_sql(
            "stg_store__accounts", ["region", "account_no"], list(ACCOUNTS_COLUMNS)
        ),
        "macros/cdc_after_staging.sql": AFTER_STAGING_MACRO,
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@functools.cache
def _simulations() -> tuple[SimResult, AlibabaSimResult]:
    debezium = simulate(
        SimConfig(seed=301, flavour="sqlserver", database=DEBEZIUM_DB, server="hostsrv",
                  transactions=40, batches=2, pk_change_probability=0.1)
    )  # fmt: skip
    canal = simulate_canal(
        AlibabaSimConfig(seed=302, database=CANAL_DB, batches=2, transactions=25,
                         redeliver_fraction=0.1)
    )  # fmt: skip
    return debezium, canal


def _canal_value(column: str, raw: str | None) -> object:
    """A Canal raw value as the host's contract types it."""
    if raw is None:
        return None
    kind = ACCOUNTS_COLUMNS[column]
    if kind == "bigint":
        return int(raw)
    if kind == "double":
        return float(raw)
    if kind == "date":
        return dt.date.fromisoformat(raw[:10])
    return raw


@pytest.fixture(scope="module")
def host(dbt_project: DbtProject, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = write_host_project(tmp_path_factory.mktemp("host_project"))
    run_dbt(["deps"], project_dir=root)  # `dbt deps` takes no target path
    yield root
    dbt_project.spark.sql(f"drop database if exists {dbt_project.schema} cascade")  # type: ignore[attr-defined]


def _land(dbt_project: DbtProject, batch: int) -> None:
    debezium, canal = _simulations()
    write_batch(debezium.batches[batch], dbt_project.landing / "debezium", batch, "value_lines",
                shuffle=True, duplicate_fraction=0.1, seed=batch)  # fmt: skip
    write_batch(canal.batches[batch], dbt_project.landing / "canal", batch, "kcat")


def _assert_gold_is_the_source(dbt_project: DbtProject, batch: int) -> None:
    debezium, canal = _simulations()
    gold = dbt_project.layer("gold")
    expected_customers = debezium.expected[batch]["customers"]
    columns = TABLES["customers"].column_names
    rows = dbt_project.sql(f"select {', '.join(columns)} from {gold}.crm_customers")
    actual_customers = {(row["id"],): row for row in rows}
    assert len(rows) == len(actual_customers)
    assert len(expected_customers) > 10
    assert set(actual_customers) == set(expected_customers)
    for key, row in expected_customers.items():
        # the contract's columns (a column the source gained mid-stream is not declared)
        wanted = {column: value for column, value in row.items() if column in columns}
        assert {column: actual_customers[key][column] for column in wanted} == wanted, key

    expected_accounts = canal.expected[batch][f"{CANAL_DB}.accounts"]
    wanted = {
        (row["region"], int(row["account_no"])): {
            c: _canal_value(c, row.get(c)) for c in ACCOUNTS_COLUMNS
        }
        for row in expected_accounts.rows
    }
    rows = dbt_project.sql(f"select {', '.join(ACCOUNTS_COLUMNS)} from {gold}.store_accounts")
    actual = {(r["region"], r["account_no"]): r for r in rows}
    assert len(rows) == len(actual)
    assert len(wanted) > 3
    assert actual == wanted


@pytest.mark.parametrize("batch", [0, 1])
def test_host_project_builds_gold_equal_to_the_sources(
    dbt_project: DbtProject, host: Path, batch: int
) -> None:
    _land(dbt_project, batch)
    result = dbt_project.run("build", project_dir=host)
    built = {r.node.unique_id for r in result.result.results}
    # the host's models and the package's, not the package's example tables
    assert {
        f"model.{HOST}.crm_customers",
        f"model.{HOST}.store_accounts",
        f"model.{HOST}.stg_crm__customers",
        f"model.{HOST}.stg_store__accounts",
        "model.cdc_lakehouse.bronze_cdc_messages",
        "model.cdc_lakehouse.stg_cdc__messages",
        "model.cdc_lakehouse.cdc_quarantine",
    } <= built
    # not the example tables, nor the package model the host disabled
    assert not {u for u in built if "inventory" in u or "shop_customers" in u}, built
    assert "model.cdc_lakehouse.captured_rows" not in built
    _assert_gold_is_the_source(dbt_project, batch)
    if batch == 1:
        # the second build merged each gold model's batch on read: the package's
        # materialization called the host's dispatched spark__cdc_after_staging
        log = (dbt_project.target_path / "logs" / "dbt.log").read_text()
        called = {line.split(OVERRIDE_LOG, 1)[1].split()[0] for line in log.splitlines()
                  if OVERRIDE_LOG in line}  # fmt: skip
        assert called == {"crm_customers", "store_accounts"}, called


# A contract written the way YAML invites a mistake: in a flow mapping the comma of
# decimal(12,2) ends the value (data_type 'decimal(12', and a key '2)').
FLOW_STYLE_CONTRACT = """version: 2
models:
  - name: stg_crm__flow
    config:
      meta:
        cdc_source: {database: HOSTDB, schema: inventory, table: customers}
        cdc_key: [id]
    columns:
      - {name: id, data_type: bigint}
      - {name: balance, data_type: decimal(12,2)}
"""


def test_host_compile_errors_name_the_fix(dbt_project: DbtProject, host: Path) -> None:
    """A typed change log the host forgets in var cdc_typed_change_logs fails the build's
    compilation with the fix named, instead of its rejected rows going missing; so does a
    contract type that YAML cut at its comma, instead of a Spark syntax error."""
    project = json.loads(json.dumps(yaml.safe_load((host / "dbt_project.yml").read_text())))
    project["vars"]["cdc_typed_change_logs"] = ["stg_crm__customers", "stg_crm__flow"]
    (host / "dbt_project.yml").write_text(yaml.safe_dump(project, sort_keys=False))
    staging = host / "models" / "staging"
    flow_files = [staging / "_flow__models.yml", staging / "stg_crm__flow.sql"]
    flow_files[0].write_text(FLOW_STYLE_CONTRACT)
    flow_files[1].write_text(TYPED_SQL)
    messages = {}
    try:
        # one node per command: dbt compile stops at the first node that fails
        for node in ("cdc_quarantine", "stg_crm__flow"):
            result = dbt_project.run(
                "compile", "--select", node, project_dir=host, expect_success=False
            )
            assert not result.success, node
            messages[node] = str(result.exception) + " ".join(
                str(r.message) for r in getattr(result.result, "results", None) or []
            )
    finally:
        for path in flow_files:
            path.unlink()
        write_host_project(host)
    quarantine, flow = messages["cdc_quarantine"], messages["stg_crm__flow"]
    assert "add 'stg_store__accounts' to the var cdc_typed_change_logs" in quarantine, quarantine
    assert "column 'balance' has data_type 'decimal(12'" in flow, flow
    assert "quote the type, data_type: 'decimal(12,2)'" in flow, flow
