"""This project as a dbt package: a host dbt project of its own installs it and builds gold.

The host project is written in a temporary folder as the README ("Install as a package")
tells a user to: its `packages.yml` pointing at this repository, the README's profile as
written there, its own `dbt_project.yml` (the vars naming its typed change logs and its
landing folder, the dispatch that puts its macros and this package's before dbt's), two
source-table contracts in its own YAML (a Debezium `customers` table, every type of the
simulated connector, and a Canal `accounts` table with a composite key), their typed change
logs (one line of SQL each) and two gold models of its own. `dbt deps` and `dbt build` run
as a user runs them: subprocesses of a virtualenv that holds the pinned packages and no code
of this repository (no session hook, no `PYTHONPATH`), in an environment without the
project's variables. The build runs the package's bronze, silver and `captured_rows` and the
host's models on simulated sources: a SQL Server Debezium connector and Canal, both
redelivering messages, with truncates and key changes, and a MongoDB collection (patches
folded by the package's Python through Spark's `transform` clause). After each of two
batches (the second an incremental run) the host's gold and the documents of
`captured_rows` equal the simulators' oracles (the source's state, kept by executing the
statements, never by replaying the messages); the package's example tables are not built;
the host's own `spark__cdc_after_staging` (a package macro dispatched in the namespace
`cdc_lakehouse`) is the one the package's materialization called, for both gold models.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import re
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from cdc_tools.local_spark import REPO_ROOT
from tests.conftest import COLD_JVM_OPTIONS, DbtProject
from tests.corpus.captured_state import typed
from workbench.consumer import CONSUMER_DIR
from workbench.simulator import TABLES, SimConfig, simulate
from workbench.simulator.alibaba_sim import AlibabaSimResult, simulate_canal
from workbench.simulator.alibaba_source import AlibabaSimConfig
from workbench.simulator.landing import write_batch
from workbench.simulator.mongodb import MongoSimResult, simulate_mongodb
from workbench.simulator.mongodb_config import MongoSimConfig
from workbench.simulator.simulation import SimResult

pytestmark = pytest.mark.spark

HOST = "shop_host"
DEBEZIUM_DB = "HOSTDB"
CANAL_DB = "host_canal"
MONGO_DB = "host_docs"
# the gold tables the host's on-run-end hook writes as parquet for the test to read (the
# build's metastore is its own process's)
EXPORTED = ("crm_customers", "store_accounts", "captured_rows")
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


EXPORT_MACRO = """{% macro export_gold(folder) %}
    {#- the test's, not the README's: gold as parquet files the test's own session reads -#}
    {%- if execute -%}
        {%- for name in NAMES -%}
            {%- do run_query("insert overwrite directory '" ~ folder ~ "/" ~ name
                ~ "' using parquet select * from " ~ target.schema ~ "_gold." ~ name) -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}
""".replace("NAMES", json.dumps(list(EXPORTED)))


def readme_block(first_line: str) -> str:
    """The README's fenced block that starts with `first_line`, as a user copies it."""
    readme = (REPO_ROOT / "README.md").read_text()
    found = re.search(r"```yaml\n(" + re.escape(first_line) + r"\n.*?)```", readme, re.DOTALL)
    assert found, f"README.md has no yaml block starting with {first_line!r}"
    return found.group(1)


# what the suite's sessions set for speed on small data (profiles/profiles.yml, conftest):
# whole-stage code generation off, few shuffle partitions, a JIT that compiles less
SUITE_SPEED = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.shuffle.partitions": "4",
}


def _with_suite_speed(profile: dict) -> dict:
    """The README's profile, its outputs with the suite's speed settings added (nothing the
    package needs: the settings gold depends on are the README's)."""
    for entry in profile.values():
        for output in entry["outputs"].values():
            parameters = output.setdefault("server_side_parameters", {})
            parameters.update(SUITE_SPEED)
            options = parameters.get("spark.driver.extraJavaOptions", "")
            parameters["spark.driver.extraJavaOptions"] = f"{options} {COLD_JVM_OPTIONS}".strip()
    return profile


def write_host_project(root: Path, package_path: Path = REPO_ROOT) -> Path:
    """The host project of the README's section, in `root`; returns `root`."""
    profile = yaml.safe_load(readme_block("# profiles.yml"))
    customers = _customers_contract()
    customer_columns = [c["name"] for c in customers["columns"]]
    files = {
        "packages.yml": yaml.safe_dump({"packages": [{"local": str(package_path)}]}),
        "profiles.yml": yaml.safe_dump(_with_suite_speed(profile), sort_keys=False),
        "dbt_project.yml": yaml.safe_dump(
            {
                "name": HOST,
                "version": "1.0.0",
                "config-version": 2,
                "profile": next(iter(profile)),
                "vars": {
                    "cdc_landing_dir": str(root / "landing"),
                    "cdc_typed_change_logs": ["stg_crm__customers", "stg_store__accounts"],
                },
                "dispatch": [
                    {"macro_namespace": "cdc_lakehouse", "search_order": [HOST, "cdc_lakehouse"]},
                    {"macro_namespace": "dbt", "search_order": [HOST, "cdc_lakehouse", "dbt"]},
                ],
                "models": {
                    HOST: {
                        "+file_format": "parquet",
                        "staging": {"+schema": "silver"},
                        "marts": {"+schema": "gold"},
                    },
                },
                "on-run-end": [f"{{{{ export_gold('{root / 'exported'}') }}}}"],
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
        "macros/export_gold.sql": EXPORT_MACRO,
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@functools.cache
def _simulations() -> tuple[SimResult, AlibabaSimResult, MongoSimResult]:
    debezium = simulate(
        SimConfig(seed=301, flavour="sqlserver", database=DEBEZIUM_DB, server="hostsrv",
                  transactions=40, batches=2, pk_change_probability=0.1)
    )  # fmt: skip
    canal = simulate_canal(
        AlibabaSimConfig(seed=302, database=CANAL_DB, batches=2, transactions=25,
                         redeliver_fraction=0.1)
    )  # fmt: skip
    mongodb = simulate_mongodb(
        MongoSimConfig(seed=303, server="hostmongo", database=MONGO_DB, generation="oplog",
                       schemas_enable=False, full_document=True, redeliver_fraction=0.15,
                       v2_patch_fraction=0.3, transactions=30, batches=2)
    )  # fmt: skip
    return debezium, canal, mongodb


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


# what a user's shell has; nothing of this project's (DBT_*, CDC_*, PYTHONPATH, SPARK_LOCAL_IP)
USER_ENVIRONMENT = ("PATH", "HOME", "LANG", "JAVA_HOME", "TMPDIR")


@pytest.fixture(scope="module")
def clean_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv with the pinned packages of this one and none of its code: no `.pth` hook
    (a directory named by a `.pth` line has its own `.pth` files skipped), no `cdc_tools`,
    `python_udfs` or `workbench` importable."""
    venv = tmp_path_factory.mktemp("clean_venv")
    subprocess.run(
        [getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", venv],
        check=True,
    )
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    Path(site, "pinned.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = (
        "import importlib.util as u, sys; "
        "found = [m for m in ('cdc_tools', 'python_udfs', 'workbench') if u.find_spec(m)]; "
        "assert not found, found; assert u.find_spec('dbt.adapters.spark'); "
        "assert not [m for m in sys.modules if m.startswith('pyspark')]"
    )
    subprocess.run([python, "-c", probe], check=True, cwd=venv, env=_user_environment())
    return python


def _user_environment() -> dict[str, str]:
    return {name: os.environ[name] for name in USER_ENVIRONMENT if name in os.environ}


def user_dbt(python: Path, root: Path, *args: str) -> str:
    """`dbt <args>` as a user runs it in the host project's folder; its output."""
    done = subprocess.run(
        [python, "-c", "from dbt.cli.main import cli; cli()", *args],
        cwd=root, env=_user_environment(), capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, f"dbt {' '.join(args)} failed:\n{done.stdout[-6000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def host(clean_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = write_host_project(tmp_path_factory.mktemp("host_project"))
    user_dbt(clean_python, root, "deps")
    yield root


def _land(root: Path, batch: int) -> None:
    debezium, canal, mongodb = _simulations()
    landing = root / "landing"
    write_batch(debezium.batches[batch], landing / "debezium", batch, "value_lines",
                shuffle=True, duplicate_fraction=0.1, seed=batch)  # fmt: skip
    write_batch(canal.batches[batch], landing / "canal", batch, "kcat")
    write_batch(mongodb.batches[batch], landing / "mongodb", batch, "value_lines")


def _exported(dbt_project: DbtProject, root: Path) -> None:
    """The build's exported gold as temporary views `host_<name>` of the test's session."""
    for name in EXPORTED:
        frame = dbt_project.spark.read.parquet(str(root / "exported" / name))  # type: ignore[attr-defined]
        frame.createOrReplaceTempView(f"host_{name}")


def _assert_gold_is_the_source(dbt_project: DbtProject, batch: int) -> None:
    debezium, canal, mongodb = _simulations()
    expected_customers = debezium.expected[batch]["customers"]
    columns = TABLES["customers"].column_names
    rows = dbt_project.sql(f"select {', '.join(columns)} from host_crm_customers")
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
    rows = dbt_project.sql(f"select {', '.join(ACCOUNTS_COLUMNS)} from host_store_accounts")
    actual = {(r["region"], r["account_no"]): r for r in rows}
    assert len(rows) == len(actual)
    assert len(wanted) > 3
    assert actual == wanted

    rows = dbt_project.sql(
        "select _cdc_source_id, _cdc_key, _cdc_row_json, _cdc_is_partial from host_captured_rows"
    )
    for namespace in mongodb.namespaces.values():
        own = [row for row in rows if row["_cdc_source_id"] == namespace]
        documents = {row["_cdc_key"]: typed(json.loads(row["_cdc_row_json"])) for row in own}
        assert len(documents) == len(own), f"{namespace}: a key appears twice"
        visible = mongodb.expected_visible[batch].get(namespace, {})
        assert visible, f"{namespace}: the oracle holds no document"
        assert documents == {key: typed(json.loads(doc)) for key, doc in visible.items()}
        flagged = {row["_cdc_key"] for row in own if row["_cdc_is_partial"]}
        assert flagged == set(mongodb.expected_partial[batch].get(namespace, {})), namespace


@pytest.mark.parametrize("batch", [0, 1])
def test_host_project_builds_gold_equal_to_the_sources(
    dbt_project: DbtProject, clean_python: Path, host: Path, batch: int
) -> None:
    _land(host, batch)
    user_dbt(clean_python, host, "build")
    results = json.loads((host / "target" / "run_results.json").read_text())["results"]
    built = {result["unique_id"] for result in results}
    # the host's models and the package's, not the package's example tables
    assert {
        f"model.{HOST}.crm_customers",
        f"model.{HOST}.store_accounts",
        f"model.{HOST}.stg_crm__customers",
        f"model.{HOST}.stg_store__accounts",
        "model.cdc_lakehouse.bronze_cdc_messages",
        "model.cdc_lakehouse.stg_cdc__messages",
        "model.cdc_lakehouse.int_cdc__document_changes",
        "model.cdc_lakehouse.captured_rows",
        "model.cdc_lakehouse.cdc_quarantine",
    } <= built
    assert not {u for u in built if "inventory" in u or "shop_customers" in u}, built
    _exported(dbt_project, host)
    _assert_gold_is_the_source(dbt_project, batch)
    if batch == 1:
        # the second build merged each gold model's batch on read: the package's
        # materialization called the host's dispatched spark__cdc_after_staging, for the
        # host's gold models and the package's own
        log = (host / "logs" / "dbt.log").read_text()
        called = {line.split(OVERRIDE_LOG, 1)[1].split()[0] for line in log.splitlines()
                  if OVERRIDE_LOG in line}  # fmt: skip
        assert called == {"crm_customers", "store_accounts", "captured_rows"}, called


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
                "compile", "--select", node, "--profile", "cdc_spark",
                project_dir=host, expect_success=False,
            )  # fmt: skip
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
