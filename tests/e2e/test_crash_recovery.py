"""A gold build interrupted at any point ends, once run again, in the correct state.

Two tests: a deterministic one, which stops the materialization right after it staged
the new content of the touched buckets and then damages the state as an overwrite killed
half-way would (a touched bucket emptied), then does the same to a run that writes the
delta partition (merge on read); and a real one, which SIGKILLs a `dbt build` process
while it writes gold (in the process that built the state it starts from) and runs it again
(`dbt build` through dbtRunner in a new process, which then compares gold with the source).
Both must end equal to the source.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cdc_tools.local_spark import REPO_ROOT
from tests.conftest import process_env
from workbench.gold_runs import RunRecord, properties_of, run_record
from workbench.oracle_check import COMPARED_MODELS, compare_database
from workbench.simulator import SimConfig, simulate, write_batch

pytestmark = pytest.mark.spark

CONFIG = SimConfig(
    seed=77, flavour="sqlserver", database="CRASH_MSS", server="crash", batches=3, transactions=60
)


# Defined in a copy of the project, this stops every gold run between staging and overwrite
# (the dispatched extension point: macros/materializations/cdc_current_state/
# cdc_after_staging.sql).
STOP_AFTER_STAGING = """
{% macro spark__cdc_after_staging(relation) %}
    {{ exceptions.raise_compiler_error(
        "injected failure: " ~ relation ~ " stopped after staging, before overwriting its buckets"
    ) }}
{% endmacro %}
"""


def test_resume_after_a_failure_between_staging_and_overwrite(dbt_project, tmp_path) -> None:  # type: ignore[no-untyped-def]
    stopping = dbt_project.copy_project(tmp_path / "stopping_project")
    (stopping / "macros" / "spark__cdc_after_staging.sql").write_text(STOP_AFTER_STAGING)
    result = simulate(CONFIG)
    landing = dbt_project.landing / CONFIG.database
    write_batch(result.batches[0], landing, 0, "kcat")
    # the runs build what compare_database reads (COMPARED_MODELS), as the killed build does
    dbt_project.run("run", *COMPARED_MODELS)
    write_batch(result.batches[1], landing, 1, "kcat")
    dbt_project.run("run", *COMPARED_MODELS, "--exclude", "customers")
    failed = dbt_project.run(
        "run",
        "--select",
        "customers",
        expect_success=False,
        project_dir=stopping,
    )
    assert not failed.success

    gold = dbt_project.layer("gold")
    spark = dbt_project.spark
    staged = [
        r["cdc_bucket"]
        for r in dbt_project.sql(
            f"select distinct cdc_bucket from {gold}.customers__cdc_staging order by 1"
        )
    ]
    assert staged, "the interrupted run should have left its staged buckets"
    # and its batch, written once before staging (`<model>__cdc_batch`, kept between runs)
    assert spark.catalog.tableExists(f"{gold}.customers__cdc_batch")  # type: ignore[attr-defined]
    # the state's run record says what was staged (decision 0023)
    stopped = _record(dbt_project, gold)
    assert stopped.last() == {"status": "staged", "kind": "compaction"}
    # Damage the state as an overwrite killed after deleting a partition would.
    _damage_then_run(dbt_project, f"{gold}.customers__cdc_state", staged[0], result, 1)
    # the staged run was applied by the next one (resumed), as staged: a compaction
    recovered = _record(dbt_project, gold)
    assert recovered.last() == {"status": "applied", "kind": "compaction"}
    assert recovered.counts.get("resumed", 0) == stopped.counts.get("resumed", 0) + 1
    assert recovered.counts["compaction"] == stopped.counts.get("compaction", 0) + 1
    assert stopped.staged is not None and recovered.loaded_through == stopped.staged
    # the scratch tables stay for the next run, which overwrites them
    assert spark.catalog.tableExists(f"{gold}.customers__cdc_staging")  # type: ignore[attr-defined]
    assert spark.catalog.tableExists(f"{gold}.customers__cdc_batch")  # type: ignore[attr-defined]

    # The same on a run that writes the delta partition (a large compaction ratio).
    write_batch(result.batches[2], landing, 2, "kcat")
    dbt_project.run("run", *COMPARED_MODELS, "--exclude", "customers")
    failed = dbt_project.run(
        "run",
        "--select",
        "customers",
        vars={"cdc_compaction_ratio": 100},
        expect_success=False,
        project_dir=stopping,
    )
    assert not failed.success
    stopped = _record(dbt_project, gold)
    assert stopped.last() == {"status": "staged", "kind": "delta"}
    stale = compare_database(
        spark, gold, CONFIG.database, result.expected[2], result=result, batch=2
    )
    assert any(d.startswith("customers") for d in stale.differences), "damage must be real"
    dbt_project.run("run", "--select", "customers")
    outcome = compare_database(
        spark, gold, CONFIG.database, result.expected[2], result=result, batch=2
    )
    assert outcome.ok, outcome.differences
    recovered = _record(dbt_project, gold)
    assert recovered.last() == {"status": "applied", "kind": "delta"}
    assert recovered.counts["resumed"] == stopped.counts["resumed"] + 1
    assert recovered.counts["delta"] == stopped.counts.get("delta", 0) + 1

    # A state of the old layout (before decision 0023): a run log table, `<model>__cdc_runs`,
    # whose last entry is a staged run, and its staging table partitioned like the state.
    # The next run applies it once, then keeps the record in the state's properties.
    state = f"{gold}.customers__cdc_state"
    before = _record(dbt_project, gold)
    bucket = dbt_project.sql(f"select min(cdc_bucket) as b from {state} where cdc_bucket >= 0")
    bucket = bucket[0]["b"]
    for table in ("staging", "batch"):
        dbt_project.sql(f"drop table {gold}.customers__cdc_{table}")
    dbt_project.sql(f"create table {gold}.customers__cdc_staging like {state}")
    dbt_project.sql(
        f"insert into {gold}.customers__cdc_staging "
        f"select * from {state} where cdc_bucket = {bucket}"
    )
    dbt_project.sql(
        f"create table {gold}.customers__cdc_runs (invocation_id string, loaded_through "
        "timestamp, status string, recorded_at timestamp, kind string) using parquet"
    )
    dbt_project.sql(
        f"insert into {gold}.customers__cdc_runs values "
        "('old', timestamp'2000-01-01', 'applied', timestamp'2000-01-01', 'full'), "
        f"('old', timestamp'{before.loaded_through}', 'staged', current_timestamp(), 'delta')"
    )
    dbt_project.sql(
        f"alter table {state} unset tblproperties ('cdc.run.loaded_through', 'cdc.run.staged', "
        "'cdc.run.kind', 'cdc.read_through')"
    )
    _damage_then_run(dbt_project, state, bucket, result, 2)
    migrated = _record(dbt_project, gold)
    # the run log's staged entry is the watermark: nothing new, no run of a new kind applied
    assert migrated.loaded_through == before.loaded_through
    assert migrated.last() == {"status": "applied", "kind": "delta"}
    assert migrated.counts == before.counts
    assert not spark.catalog.tableExists(f"{gold}.customers__cdc_runs")  # type: ignore[attr-defined]


def _damage(dbt_project, state: str, bucket: int) -> None:  # type: ignore[no-untyped-def]
    """Deletes the files of a bucket of the state, as an overwrite killed after deleting a
    partition would."""
    location = next(
        r["data_type"]
        for r in dbt_project.sql(f"describe table extended {state}")
        if r["col_name"] == "Location"
    )
    bucket_dir = Path(location.removeprefix("file:")) / f"cdc_bucket={bucket}"
    for data_file in bucket_dir.glob("*.parquet"):
        data_file.unlink()
    dbt_project.spark.catalog.refreshTable(state)


def _damage_then_run(dbt_project, state: str, bucket: int, result, batch: int) -> None:  # type: ignore[no-untyped-def]
    """Damages `bucket` of `state` (_damage), checks that gold now differs from the source at
    `batch`, runs customers again and checks that gold equals the source once more."""
    gold = dbt_project.layer("gold")
    _damage(dbt_project, state, bucket)
    expected = result.expected[batch]
    damaged = compare_database(
        dbt_project.spark, gold, CONFIG.database, expected, result=result, batch=batch
    )
    assert any(d.startswith("customers") for d in damaged.differences), "damage must be real"
    dbt_project.run("run", "--select", "customers")
    outcome = compare_database(
        dbt_project.spark, gold, CONFIG.database, expected, result=result, batch=batch
    )
    assert outcome.ok, outcome.differences


def _record(dbt_project, gold: str) -> RunRecord:  # type: ignore[no-untyped-def]
    """customers' run record (its state table's properties)."""
    return run_record(
        properties_of(dbt_project.sql(f"show tblproperties {gold}.customers__cdc_state"))
    )


# Both processes build the models `compare_database` reads (COMPARED_MODELS): the other
# models are no part of what is checked (and `dbt build` runs the data tests of those
# models alone: `--indirect-selection cautious`).
GOLD = repr(list(COMPARED_MODELS))
CAUTIOUS = repr(["--indirect-selection", "cautious"])

# The killed process: it builds the state the killed build starts from (batch 0, `dbt run`),
# lands batch 1 and starts `dbt build` as the CLI runs it (dbtRunner), all on the one session
# it creates (one JVM start for both builds). Unbuffered (PYTHONUNBUFFERED): the test reads
# dbt's log lines as they are written, to kill it inside the customers merge.
PREPARE_THEN_BUILD = f"""
import json, sys
from pathlib import Path
from cdc_tools.dbt_invoke import run_dbt
from cdc_tools.local_spark import get_local_spark
from workbench.simulator import SimConfig, simulate, write_batch
get_local_spark()
config = SimConfig(**json.loads(sys.argv[1]))
result = simulate(config)
landing, target = Path(sys.argv[2]), Path(sys.argv[3])
write_batch(result.batches[0], landing, 0, "value_lines")
run_dbt(["run", *{GOLD}], target_path=target)
write_batch(result.batches[1], landing, 1, "value_lines")
print("BUILD OF BATCH 1", flush=True)
run_dbt(["build", *{GOLD}, *{CAUTIOUS}], target_path=target)
"""

# The run after the kill, then the comparison, in one new process: the build is `dbt build`
# as the CLI runs it (dbtRunner), on the session this process creates.
RECOVER_AND_VERIFY = f"""
import json, sys
from pathlib import Path
from cdc_tools.dbt_invoke import run_dbt
from cdc_tools.local_spark import get_local_spark
from workbench.oracle_check import compare_database
from workbench.simulator import SimConfig, simulate
spark = get_local_spark()
run_dbt(["build", *{GOLD}, *{CAUTIOUS}], target_path=Path(sys.argv[4]))
config = SimConfig(**json.loads(sys.argv[1]))
result = simulate(config)
outcome = compare_database(spark, sys.argv[2], config.database,
                           result.expected[int(sys.argv[3])], result=result,
                           batch=int(sys.argv[3]))
print("VERIFY " + json.dumps(outcome.differences))
"""


def _env(tmp_path: Path, schema: str, landing: Path) -> dict[str, str]:
    return process_env(tmp_path / "spark", schema, landing, PYTHONUNBUFFERED="1")


def test_killed_build_recovers_on_the_next_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    landing = tmp_path / "landing"
    env = _env(tmp_path, "t_killed", landing)
    config = json.dumps(
        {
            k: getattr(CONFIG, k)
            for k in ("seed", "flavour", "database", "server", "batches", "transactions")
        }
    )
    target = str(tmp_path / "target")
    process = subprocess.Popen(
        [sys.executable, "-c", PREPARE_THEN_BUILD, config, str(landing / CONFIG.database), target],
        env=env,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    killed_at = None
    building_batch_1 = False
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        seen.append(line)
        building_batch_1 = building_batch_1 or line.startswith("BUILD OF BATCH 1")
        if building_batch_1 and "START sql cdc_current_state model" in line and "customers" in line:
            time.sleep(2.0)  # inside the customers merge
            killed_at = line.strip()
            os.killpg(process.pid, signal.SIGKILL)
            break
    process.wait(timeout=120)
    assert killed_at is not None, "the build finished before it could be killed:\n" + "".join(
        seen[-40:]
    )
    assert process.returncode == -signal.SIGKILL

    recovered = subprocess.run(
        [sys.executable, "-c", RECOVER_AND_VERIFY, config, "t_killed_gold", "1", target],
        env=env,
        cwd=REPO_ROOT,
        check=False,
        capture_output=True,
        text=True,
    )
    assert recovered.returncode == 0, recovered.stdout[-4000:] + recovered.stderr[-4000:]
    [report] = [line for line in recovered.stdout.splitlines() if line.startswith("VERIFY ")]
    assert json.loads(report.removeprefix("VERIFY ")) == []


# ------------------------------------------ a build checks what the gold write staged
# Defined in a copy of the project, this damages what the customers run staged, before the
# run overwrites its state with it: the first live key of the batch twice, the second one
# lost, and a copy of the first with a null id.
DAMAGE_STAGING = """
{% macro spark__cdc_after_staging(relation) %}
    {%- if relation.identifier == 'customers' -%}
        {%- set staging = relation.incorporate(
              path={'identifier': 'customers__cdc_staging'}, type='table') -%}
        {%- set damaged = staging ~ '_damaged' -%}
        {%- set batch = relation.incorporate(
              path={'identifier': 'customers__cdc_batch'}, type='table') -%}
        {%- set keys -%}
            select staged.id from {{ staging }} as staged
            where not staged._cdc_is_deleted and staged.cdc_bucket = -2 and exists (
                select 1 from {{ batch }} as batch
                where batch.id = staged.id and batch._cdc_source_id = staged._cdc_source_id)
            order by staged.id limit 2
        {%- endset -%}
        {%- set ids = run_query(keys).columns[0].values() -%}
        {%- set columns = [] -%}
        {%- for column in adapter.get_columns_in_relation(staging) -%}
            {%- do columns.append(
                  'null as id' if column.name == 'id' else '`' ~ column.name ~ '`') -%}
        {%- endfor -%}
        {%- set rows -%}
            select * from {{ staging }} where id != {{ ids[1] }}
            union all select * from {{ staging }} where id = {{ ids[0] }}
            union all select {{ columns | join(', ') }} from {{ staging }}
            where id = {{ ids[0] }}
        {%- endset -%}
        {%- do run_query('drop table if exists ' ~ damaged) -%}
        {%- do run_query('create table ' ~ damaged ~ ' using parquet as ' ~ rows) -%}
        {%- do run_query(
              'insert overwrite table ' ~ staging ~ ' select * from ' ~ damaged) -%}
        {%- do run_query('drop table ' ~ damaged) -%}
    {%- endif -%}
{% endmacro %}
"""
RECORDED = "the write of this build checked what it wrote"
CHECKED_CONFIG = SimConfig(
    seed=78, flavour="sqlserver", database="CHECK_MSS", server="check", batches=3, transactions=30
)
LOADED_DELTA = {"cdc_test_scope": "loaded", "cdc_compaction_ratio": 100}


def test_a_build_checks_what_the_gold_write_staged(dbt_project, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Within `dbt build`, the gold write checks what it staged (unique key, column checks,
    position against the batch) and the data tests read what it recorded, without a query
    of the state: a damaged staging fails all three."""
    damaging = dbt_project.copy_project(tmp_path / "damaging_project")
    (damaging / "macros" / "spark__cdc_after_staging.sql").write_text(DAMAGE_STAGING)
    result = simulate(CHECKED_CONFIG)
    landing = dbt_project.landing / CHECKED_CONFIG.database
    selected = ("--select", "+customers", "--indirect-selection", "cautious")
    write_batch(result.batches[0], landing, 0, "kcat")
    dbt_project.run("run", *selected)  # the state exists: the builds below are incremental
    write_batch(result.batches[1], landing, 1, "kcat")
    clean = dbt_project.run("build", *selected, vars=LOADED_DELTA)
    recorded = {
        r.node.name: str(r.status)
        for r in clean.result.results
        if r.node.resource_type == "test" and RECORDED in (r.node.compiled_code or "")
    }
    write_batch(result.batches[2], landing, 2, "kcat")
    damaged = dbt_project.run(
        "build", *selected, vars=LOADED_DELTA, expect_success=False, project_dir=damaging
    )
    tests = {r.node.name: r for r in damaged.result.results if r.node.resource_type == "test"}
    failed = {name: r for name, r in tests.items() if str(r.status) == "fail"}
    assert {name.split("_customers")[0] for name in failed} == {
        "cdc_lakehouse_cdc_unique_key",
        "cdc_lakehouse_cdc_column_checks",
        "cdc_lakehouse_cdc_position_not_behind_change_log",
    }, sorted(failed)
    for name, test in failed.items():
        assert RECORDED in test.node.compiled_code, (name, test.node.compiled_code)
        assert test.failures and test.failures > 0, name
    rows = {
        name.split("_customers")[0]: dbt_project.sql(test.node.compiled_code)
        for name, test in failed.items()
    }
    [duplicate] = rows["cdc_lakehouse_cdc_unique_key"]
    [lost] = rows["cdc_lakehouse_cdc_position_not_behind_change_log"]
    assert int(duplicate["row_count"]) == 2
    assert lost["id"] != duplicate["id"] and lost["latest_op"] in ("c", "u", "r"), lost
    assert [r["message"] for r in rows["cdc_lakehouse_cdc_column_checks"]] == [
        "1 row of customers has a null id"
    ]
    # the build before the damage read the same records and passed
    assert recorded and set(recorded.values()) == {"pass"}, recorded
