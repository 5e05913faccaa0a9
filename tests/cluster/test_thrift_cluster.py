"""The project on a distributed Spark: dbt's `thrift` target against a standalone cluster.

`workbench.servers.cluster` starts, from the installed pyspark distribution and on 127.0.0.1 only,
a standalone master, one worker (whose executor is its own JVM) and the Spark Thrift Server
submitted to that master, with its own metastore and warehouse, and the project's Python
UDFs shipped to the executor. Gold is on Delta Lake there: the Thrift Server has the `delta`
target's jars, extension and catalog, and dbt `CDC_GOLD_FILE_FORMAT=delta`. Simulated Oracle,
SQL Server, Db2 and MongoDB sources land in a bucket of an S3-compatible server (s3proxy,
tests/s3_server.py), which the executor reads through Hadoop's S3A connector (the pinned jars
of spark-jars.lock, the endpoint in the cluster's settings, the credentials in its processes'
environment); the same files land in a local folder too, for the local target. dbt runs on
the `thrift` target (a subprocess, as a user runs it) after a first batch (`dbt run`) and
again after a second one (`dbt build`: the data tests' SQL runs on the cluster once, on whole
tables); after each, every gold relation built on the cluster must equal the simulator's
oracle, and gold's state tables are Delta tables, which the second build merged into. After
the second, the `local` target (gold on parquet) runs the same files in one full `dbt run`
(in-process, on the shared session: the local target's data tests run in every other
module), and the cluster's incrementally built gold must equal it row for row, every column
but the load time (so the local gold equals the oracle too; where it differs, the oracle
check says which side is wrong). The cluster is stopped when the module ends, also when a
step failed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from cdc_tools.local_spark import PROFILES_DIR, REPO_ROOT
from tests.conftest import COLD_JVM_OPTIONS, DbtProject
from tests.e2e.test_mongodb_sources import _assert_documents_match, _assert_typed_customers_match
from tests.e2e.test_simulated_sources import _assert_customer_history_matches
from tests.s3_server import S3Server, upload
from workbench.consumer import CONSUMER_DIR
from workbench.oracle_check import GoldReader, compare_database
from workbench.servers.cluster import (
    ClusterError,
    ClusterSpec,
    ClusterState,
    pids_naming,
    processes,
    running,
)
from workbench.simulator import SimConfig, SimResult, simulate, write_batch
from workbench.simulator.mongodb import MongoSimResult, simulate_mongodb
from workbench.simulator.mongodb_config import MongoSimConfig

pytestmark = pytest.mark.spark

# (flavour, schemas_enable, landing format)
RELATIONAL: list[tuple[str, bool, str]] = [
    ("oracle", False, "value_lines"),
    ("sqlserver", True, "kcat"),
    ("db2", True, "value_lines"),
]
REMOTE_SCHEMA = "t_cluster"
BUCKET = "cluster"
# the landing the cluster's builds read: the bucket's copy of the local landing folder
LANDING = f"s3a://{BUCKET}/landing"
CONNECT_SCHEMA = "t_connect"
# gold columns that say when a row was loaded, not what it holds: they differ between
# two builds of the same files
LOAD_TIME_COLUMNS = frozenset({"_loaded_at", "_load_id"})
TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSSSS"
BUILD_TIMEOUT_S = 900.0
"""A build here takes 2 to 7 minutes (6.5 in a full run of the suite on a slow machine,
beside the other worker's builds). Past this, what it waits for is written down
(`_stop_a_stuck_build`) and the test fails with it: no build runs twice. (CI's runs of stop
43 waited in dbt's `CloseSession` while the Thrift Server waited for Hive's function
registration, which had failed on `LlapSigner$Signable`: `workbench.servers.thrift_server`
now skips that registration.)"""
SERVER_CLASS_ERROR = "NoClassDefFoundError"


def _spec(
    table_format: str = "parquet",
    connect_port: int | None = None,
    s3: S3Server | None = None,
    **extra_conf: str,
) -> ClusterSpec:
    return ClusterSpec(
        master_port=0, master_ui_port=0, worker_port=0, worker_ui_port=0, thrift_port=0,
        metastore_port=0, connect_port=connect_port,
        worker_memory="3g", executor_memory="2g", driver_memory="2g",
        extra_conf={**(s3.spark_conf() if s3 else {}), **extra_conf},
        env=s3.env() if s3 else {}, java_options=COLD_JVM_OPTIONS, table_format=table_format,
    )  # fmt: skip


@pytest.fixture(scope="module")
def cluster(s3_server, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The cluster, its gold on Delta Lake: the Thrift Server has the `delta` target's jars
    (shipped to the executor; the S3A connector's among them), extension and catalog;
    bronze and silver stay parquet. Its processes reach the module's S3-compatible server
    (`s3_server`). A Spark Connect server is submitted beside it, with the same settings,
    for the `connect` target."""
    jars = Path(os.environ.get("CDC_SPARK_JARS_DIR") or REPO_ROOT / "jars")
    for pattern in ("delta-spark_*.jar", "hadoop-aws-*.jar"):
        if not list(jars.glob(pattern)):
            pytest.fail(f"{pattern} is not in {jars}: run `make setup` (it fetches it)")
    spec = _spec("delta", connect_port=0, s3=s3_server)
    with running(tmp_path_factory.mktemp("cluster"), spec) as state:
        yield state
    _gone(state)  # master, worker, executor, Thrift Server and metastore: none left


def _gone(state: ClusterState) -> None:
    left = pids_naming(Path(state.home))
    assert not left, f"still running after the cluster was stopped: {left}"
    assert not (Path(state.home) / "cluster.json").exists()


def test_a_thrift_server_that_cannot_start_stops_the_cluster(tmp_path: Path) -> None:
    """A Thrift Server that cannot start after master and worker did leaves no process
    behind. (A block that fails while a server runs: the local server's test below; the
    module's cluster is checked gone when the module ends.)"""
    with pytest.raises(ClusterError, match="thrift-server"):
        with running(tmp_path / "start", _spec(**{"spark.driver.memory": "no-such-size"})):
            pass
    for name in ("master", "worker", "thrift-server"):
        assert (tmp_path / "start" / "logs" / f"{name}.log").exists()
    assert not (tmp_path / "start" / "cluster.json").exists()
    assert not pids_naming(tmp_path / "start"), (
        "a process of the cluster that failed to start is still running"
    )


def test_the_cluster_is_distributed_and_listens_on_loopback_only(cluster) -> None:  # type: ignore[no-untyped-def]
    running_now = processes(cluster)
    roles = {process.role for process in running_now}
    assert {"master", "worker", "thrift-server", "connect-server", "executor"} <= roles
    # an executor per application (the Thrift Server, the Connect server), each its own JVM,
    # started by the worker
    executors = [p for p in running_now if p.role == "executor"]
    assert len(executors) == 2, running_now
    assert not {p.pid for p in executors} & set(cluster.pids.values())
    addresses = [address for process in running_now for address in process.listening]
    assert f"127.0.0.1:{cluster.thrift_port}" in addresses
    assert f"127.0.0.1:{cluster.connect_port}" in addresses
    assert addresses and all(a.startswith("127.0.0.1:") for a in addresses), addresses


def test_the_local_server_is_one_spark_jvm_on_loopback(tmp_path: Path) -> None:
    """`up --local` (make spark-server-up): the Thrift Server alone on local[2] with its
    metastore service, no master, worker or executor process, answering on 127.0.0.1 only;
    a block that fails while it runs stops it with nothing left."""
    from pyhive import hive

    spec = ClusterSpec(
        thrift_port=0, metastore_port=0, driver_memory="1g", local=True,
        java_options=COLD_JVM_OPTIONS,
    )  # fmt: skip
    with (
        pytest.raises(RuntimeError, match="a step failed"),
        running(tmp_path / "local", spec) as state,
    ):
        assert state.master_url == "local[2]"
        running_now = processes(state)
        roles = {p.role for p in running_now}
        assert roles <= {
            "metastore",
            "metastore child",
            "thrift-server",
            "thrift-server child",
            "python",
        }
        assert {"metastore", "thrift-server"} <= roles, roles
        addresses = [address for process in running_now for address in process.listening]
        assert f"127.0.0.1:{state.thrift_port}" in addresses
        assert all(a.startswith("127.0.0.1:") for a in addresses), addresses
        connection = hive.connect(host=state.thrift_host, port=state.thrift_port, username="dbt")
        try:
            cursor = connection.cursor()
            cursor.execute("select 1 + 1")
            assert cursor.fetchall() == [(2,)]
        finally:
            connection.close()
        raise RuntimeError("a step failed")
    _gone(state)


@pytest.fixture(scope="module")
def relational() -> list[tuple[SimResult, str]]:
    results = []
    for index, (flavour, wrapped, fmt) in enumerate(RELATIONAL):
        config = SimConfig(
            seed=300 + index,
            flavour=flavour,
            database=f"CL{index}_{flavour.upper()}",
            server=f"cl{index}",
            schemas_enable=wrapped,
            batches=2,
            transactions=40,
            transaction_metadata=index == 0,
            truncate_probability=0.01 if flavour == "db2" else 0.0,
        )
        results.append((simulate(config), fmt))
    return results


@pytest.fixture(scope="module")
def documents() -> list[tuple[MongoSimResult, str]]:
    config = MongoSimConfig(
        seed=340,
        server="clmongo",
        database="shop",
        generation="oplog",
        schemas_enable=False,
        full_document=True,
        redeliver_fraction=0.15,
        v2_patch_fraction=0.3,
        transactions=40,
        batches=2,
    )
    return [(simulate_mongodb(config), "kcat")]


@pytest.fixture(scope="module")
def remote(dbt_project: DbtProject) -> DbtProject:
    """The cluster's gold, copied into the local session under its own schema prefix, so
    that the oracle checks of the local suites read it as they read local gold."""
    return DbtProject(
        spark=dbt_project.spark,
        schema=f"{dbt_project.schema}_remote",
        landing=dbt_project.landing,
        target_path=dbt_project.target_path.parent / "remote-copy",
    )


def thrift_build(
    cluster: ClusterState,
    project: DbtProject,
    step: str,
    command: str = "build",
    connect: bool = False,
) -> float:
    """`dbt <command>` on the `thrift` target (`connect`: the `connect` target, on the
    cluster's Connect server), as a user runs it (a subprocess); fails the test with its
    log's tail when it fails, else returns its wall time. (Run while the local build runs,
    both took longer together than one after the other: 2 cores.)"""
    name = "connect" if connect else "thrift"
    log = project.target_path.parent / f"{name}-{step}.log"
    env = {
        **os.environ,
        **(cluster.connect_env() if connect else cluster.dbt_env()),
        "CDC_SCHEMA": CONNECT_SCHEMA if connect else REMOTE_SCHEMA,
        "CDC_LANDING_DIR": LANDING,
        # a build stopped with SIGABRT writes every thread's Python stack to its log
        "PYTHONFAULTHANDLER": "1",
        # the MongoDB fold's Python, through a wrapper that records the process it ran below
        "CDC_PYTHON": str(_recording_python()),
    }
    target = project.target_path.parent / f"{name}-target"
    dbt = str(Path(sys.executable).parent / "dbt")
    argv = [
        dbt, command, "--project-dir", str(CONSUMER_DIR), "--profiles-dir", str(PROFILES_DIR),
        "--target-path", str(target), "--log-path", str(target / "logs"),
    ]  # fmt: skip
    started = time.monotonic()
    with log.open("w") as out:
        process = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            returncode = process.wait(timeout=BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(
                f"{step}: the build was stuck:\n" + _stop_a_stuck_build(cluster, process, log)
            )
    elapsed = time.monotonic() - started
    if returncode != 0:
        tail = "".join(log.read_text().splitlines(keepends=True)[-40:])
        pytest.fail(f"dbt {command} on the {name} target failed ({log}):\n{tail}")
    server = f"{name}-server"
    server_log = Path(cluster.logs[server]).read_text(errors="replace")
    assert SERVER_CLASS_ERROR not in server_log, (
        f"the {server} met a missing class ({cluster.logs[server]}): "
        + next(line for line in server_log.splitlines() if SERVER_CLASS_ERROR in line)
    )
    assert "CANNOT_MODIFY_CONFIG" not in log.read_text(errors="replace")
    print(f"\n{step}: dbt {command} on the {name} target took {elapsed:.1f} s")
    return elapsed


def _stop_a_stuck_build(cluster: ClusterState, process: subprocess.Popen[bytes], log: Path) -> str:
    """What a build that ran past BUILD_TIMEOUT_S was waiting for, then the build stopped:
    every JVM's threads (jcmd Thread.print) written beside its log, dbt's Python threads
    (faulthandler, on SIGABRT) into its log. Returns the summary a test prints: the nodes
    dbt was running, any Java deadlock, and the Thrift Server's statement threads."""
    dumps = log.with_suffix(".threads.txt")
    jcmd = shutil.which("jcmd") or str(Path(os.environ.get("JAVA_HOME", "/usr")) / "bin" / "jcmd")
    with dumps.open("w") as out:
        for member in processes(cluster):
            if member.role in ("python", "metastore"):  # not JVMs
                continue
            out.write(f"===== {member.role} (pid {member.pid})\n")
            out.flush()
            try:
                subprocess.run(
                    [jcmd, str(member.pid), "Thread.print", "-l"],
                    stdout=out, stderr=subprocess.STDOUT, timeout=60, check=False,
                )  # fmt: skip
            # no jcmd, or a JVM that does not answer: write so, and still stop dbt
            except (OSError, subprocess.TimeoutExpired) as error:
                out.write(f"no thread dump: {error}\n")
    process.send_signal(signal.SIGABRT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return stuck_build_summary(log.read_text(errors="replace"), dumps.read_text(errors="replace"))


def stuck_build_summary(dbt_log: str, thread_dumps: str) -> str:
    """The lines of a stuck build worth printing: dbt's nodes started and not finished
    (`N of M START` without its `N of M` result), whether a JVM reports a deadlock, and
    the top frames of the JVM threads that serve a request (a Thrift RPC of dbt's, or of
    the Thrift Server to its metastore) and of dbt's threads that run a node."""
    started: dict[str, str] = {}
    for line in dbt_log.splitlines():
        match = re.search(r"\b(\d+) of \d+ (START )?", line)
        if match and match.group(2):
            started[match.group(1)] = line.strip()
        elif match:
            started.pop(match.group(1), None)
    parts = [f"dbt was running ({len(started)}):", *started.values()]
    deadlocks = [line for line in thread_dumps.splitlines() if "deadlock" in line.lower()]
    parts.append("Java deadlock: " + ("; ".join(deadlocks) if deadlocks else "none reported"))
    for thread in thread_dumps.split("\n\n"):
        if "$Processor$" in thread:  # the handler of one Thrift call, running it
            parts.append("\n".join(thread.strip().splitlines()[:30]))
    # faulthandler's stacks (SIGABRT): dbt's node threads, at the call they wait in
    for thread in dbt_log.split("\n\n"):
        if "call_runner" in thread:
            parts.append("\n".join(thread.strip().splitlines()[:12]))
    return "\n".join(parts)


def _remote_relations(cursor, schema: str) -> list[str]:  # type: ignore[no-untyped-def]
    cursor.execute(f"show tables in {schema}")
    # (namespace, name, is temporary): the session's temporary views are not gold
    names = [name for _, name, temporary in cursor.fetchall() if not temporary]
    # the state, runs and staging tables behind each cdc_current_state view are internal
    return sorted(name for name in names if "__cdc_" not in name)


def _describe(cursor, relation: str) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    cursor.execute(f"describe {relation}")
    columns = []
    for name, data_type, *_ in cursor.fetchall():
        if not name or name.startswith("#"):
            break
        columns.append((name, data_type))
    return columns


def copy_remote_gold(
    cluster: ClusterState, remote: DbtProject, schema: str = REMOTE_SCHEMA
) -> list[str]:
    """Every gold relation of the cluster (built under the prefix `schema`) as a table of the
    local session (same names, schema `<remote.schema>_gold`), each row carried as JSON text
    of its typed values; read through the Thrift Server (the Connect server's relations too:
    one metastore service)."""
    from pyhive import hive

    spark = remote.spark
    local_schema = remote.layer("gold")
    spark.sql(f"drop database if exists {local_schema} cascade")  # type: ignore[attr-defined]
    spark.sql(f"create database {local_schema}")  # type: ignore[attr-defined]
    options = f"map('timestampFormat', \"{TIMESTAMP_FORMAT}\")"
    connection = hive.connect(host=cluster.thrift_host, port=cluster.thrift_port, username="dbt")
    try:
        cursor = connection.cursor()
        relations = _remote_relations(cursor, f"{schema}_gold")
        for name in relations:
            columns = _describe(cursor, f"{schema}_gold.{name}")
            cursor.execute(f"select to_json(struct(*), {options}) from {schema}_gold.{name}")
            rows = [(line,) for (line,) in cursor.fetchall()]
            ddl = ", ".join(f"`{column}` {data_type}" for column, data_type in columns)
            frame = spark.createDataFrame(rows, "j string")  # type: ignore[attr-defined]
            frame.selectExpr(f"inline(array(from_json(j, '{ddl}', {options})))").write.saveAsTable(
                f"{local_schema}.{name}"
            )
    finally:
        connection.close()
    return relations


def remote_states(cluster: ClusterState) -> dict[str, tuple[str, list[str]]]:
    """{model: (format, the operations of its history)} of every gold state table on the
    cluster (`<model>__cdc_state`), read through the Thrift Server."""
    from pyhive import hive

    connection = hive.connect(host=cluster.thrift_host, port=cluster.thrift_port, username="dbt")
    states: dict[str, tuple[str, list[str]]] = {}
    try:
        cursor = connection.cursor()
        cursor.execute(f"show tables in {REMOTE_SCHEMA}_gold")
        names = [name for _, name, temporary in cursor.fetchall() if not temporary]
        for name in (n for n in names if n.endswith("__cdc_state")):
            relation = f"{REMOTE_SCHEMA}_gold.{name}"
            cursor.execute(f"describe detail {relation}")
            fields = [column[0] for column in cursor.description]
            fmt = str(dict(zip(fields, cursor.fetchone(), strict=True))["format"])
            operations: list[str] = []
            if fmt == "delta":
                cursor.execute(f"describe history {relation}")
                at = [column[0] for column in cursor.description].index("operation")
                operations = [str(row[at]) for row in cursor.fetchall()]
            states[name.removesuffix("__cdc_state")] = (fmt, operations)
    finally:
        connection.close()
    return states


def remote_landing(cluster: ClusterState) -> dict[str, int]:
    """{folder of the landing files: bronze rows} of the cluster's bronze, read through the
    Thrift Server: where its executors read the files from."""
    from pyhive import hive

    connection = hive.connect(host=cluster.thrift_host, port=cluster.thrift_port, username="dbt")
    try:
        cursor = connection.cursor()
        cursor.execute(
            "select regexp_extract(_source_file, '^(.*)/[^/]+/[^/]+$', 1), count(*) "
            f"from {REMOTE_SCHEMA}_bronze.bronze_cdc_messages group by 1"
        )
        return {str(folder): int(rows) for folder, rows in cursor.fetchall()}
    finally:
        connection.close()


def assert_same_gold(local: DbtProject, remote: DbtProject, relations: list[str]) -> dict[str, int]:
    """Each gold relation holds the same rows (as a multiset) on both targets."""
    local_relations = sorted(
        row["tableName"]
        for row in local.sql(f"show tables in {local.layer('gold')}")
        if "__cdc_" not in row["tableName"] and not row["isTemporary"]
    )
    assert relations == local_relations
    counts = {}
    for name in relations:
        columns = [
            f"`{column}`"
            for column in local.spark.table(f"{local.layer('gold')}.{name}").columns  # type: ignore[attr-defined]
            if column not in LOAD_TIME_COLUMNS
        ]
        listed = ", ".join(columns)
        mine = f"select {listed} from {local.layer('gold')}.{name}"
        theirs = f"select {listed} from {remote.layer('gold')}.{name}"
        [difference] = local.sql(
            f"select (select count(*) from ({mine} except all {theirs})) as only_local, "
            f"(select count(*) from ({theirs} except all {mine})) as only_cluster, "
            f"(select count(*) from ({mine})) as rows"
        )
        assert difference["only_local"] == difference["only_cluster"] == 0, (name, difference)
        counts[name] = difference["rows"]
    return counts


def assert_gold_equals_the_oracle(
    project: DbtProject,
    relational: list[tuple[SimResult, str]],
    documents: list[tuple[MongoSimResult, str]],
    batch: int,
) -> None:
    failures = []
    reader = GoldReader(project.spark)
    for result, _ in relational:
        outcome = compare_database(
            project.spark,
            project.layer("gold"),
            result.config.database,
            result.expected[batch],
            result=result,
            batch=batch,
            databases=[r.config.database for r, _ in [*relational, *documents]],
            reader=reader,
        )
        assert sum(outcome.rows.values()) > 0
        if not outcome.ok:
            failures.append(f"{result.config.database}: " + "\n  ".join(outcome.differences))
    assert not failures, "gold differs from the simulated source:\n" + "\n".join(failures)
    if batch == len(relational[0][0].batches) - 1:  # the oracle's history is the whole run
        _assert_customer_history_matches(project, relational)
    _assert_documents_match(project, documents, batch)
    _assert_typed_customers_match(project, documents, batch)


def _land(project: DbtProject, s3: S3Server, relational, documents, batch: int) -> None:  # type: ignore[no-untyped-def]
    """The batch's files written into the local landing folder, then the same files uploaded
    to the bucket's landing (those of the batch only: a file uploaded again is a new version)."""
    written = [
        path
        for result, fmt in [*relational, *documents]
        for path in write_batch(
            result.batches[batch], project.landing / result.config.database, batch, fmt
        )
    ]
    upload(s3, project.landing, LANDING.removeprefix("s3a://"), written)


@pytest.mark.parametrize("batch", [0, 1], ids=["first-batch", "incremental-batch"])
def test_cluster_gold_equals_the_oracle_and_the_local_target(  # type: ignore[no-untyped-def]
    cluster, s3_server, dbt_project, remote, relational, documents, batch
) -> None:
    """The cluster builds from the bucket (`s3a://`), the local target from the local copy
    of the same files."""
    _land(dbt_project, s3_server, relational, documents, batch)
    last = batch == len(relational[0][0].batches) - 1
    thrift_build(cluster, dbt_project, f"batch-{batch}", "build" if last else "run")
    # every file the cluster loaded came from the bucket (sink files lie in
    # <database>/topics/<topic>/partition=<p>/, kcat files in <database>/kcat/)
    folders = remote_landing(cluster)
    assert folders and all(f.startswith(LANDING + "/") for f in folders), folders
    relations = copy_remote_gold(cluster, remote)
    assert {"captured_rows", "customers", "orders", "order_lines", "shop_customers"} <= set(
        relations
    )
    assert_gold_equals_the_oracle(remote, relational, documents, batch)
    states = remote_states(cluster)
    assert {"captured_rows", "customers", "orders", "order_lines"} <= set(states), states
    assert {fmt for fmt, _ in states.values()} == {"delta"}, states
    if not last:
        return
    # the incremental build merged into every current state (the history appends)
    merged = {name for name, (_, operations) in states.items() if "MERGE" in operations}
    assert {"captured_rows", "customers", "orders", "order_lines"} <= merged, states
    # the local target runs once, both batches in one full run: the cluster's gold, built
    # incrementally, must equal it row for row
    started = time.monotonic()
    dbt_project.run("run")
    print(f"batch-{batch}: dbt run on the local target took {time.monotonic() - started:.1f} s")
    try:
        counts = assert_same_gold(dbt_project, remote, relations)
    except AssertionError:
        # the cluster's gold equals the oracle (above): the local one differs from both
        # unless it equals the oracle too; say which
        assert_gold_equals_the_oracle(dbt_project, relational, documents, batch)
        raise
    print(f"\nbatch {batch}: gold rows on both targets: {counts}")


# where the wrapper of the MongoDB fold's Python (var cdc_python) writes its parent's pid
PYTHON_RECORD = Path(tempfile.gettempdir()) / f"cdc-cluster-{os.getpid()}" / "python-parents.txt"


def _recording_python() -> Path:
    """A `python3` that appends its parent's pid to PYTHON_RECORD, then runs Python."""
    wrapper = PYTHON_RECORD.with_name("recording-python")
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    wrapper.write_text(f'#!/bin/sh\necho "$PPID" >> {PYTHON_RECORD}\nexec python3 "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def test_the_document_fold_ran_on_the_executor(cluster, dbt_project) -> None:  # type: ignore[no-untyped-def]
    """The MongoDB documents were folded (test above) by the package's Python, through Spark's
    transform clause: its processes ran below the executor JVM, not the Thrift Server's
    driver."""
    executors = {p.pid for p in processes(cluster) if p.role == "executor"}
    parents = {int(line) for line in PYTHON_RECORD.read_text().split()}
    assert parents, "the fold's Python never ran"
    assert parents <= executors, f"the fold ran below {parents}, the executors are {executors}"


def test_gold_on_the_clusters_connect_server_equals_the_oracle_and_the_local_target(  # type: ignore[no-untyped-def]
    cluster, dbt_project, relational, documents
) -> None:
    """dbt's `connect` target on a remote Spark Connect endpoint (`sc://`: the Connect server
    submitted to the cluster, its executor a JVM of its own): one `dbt run` of both batches'
    files, in a schema of its own. Its gold equals the oracle, and the local target's gold of
    the same files (built by the test above) row for row."""
    connected = DbtProject(
        spark=dbt_project.spark,
        schema=f"{dbt_project.schema}_connect",
        landing=dbt_project.landing,
        target_path=dbt_project.target_path.parent / "connect-copy",
    )
    thrift_build(cluster, dbt_project, "both-batches", "run", connect=True)
    relations = copy_remote_gold(cluster, connected, CONNECT_SCHEMA)
    last = len(relational[0][0].batches) - 1
    assert_gold_equals_the_oracle(connected, relational, documents, last)
    counts = assert_same_gold(dbt_project, connected, relations)
    print(f"\ngold rows on the cluster's Connect server and the local target: {counts}")


def test_a_stuck_build_summary_names_what_it_waited_for() -> None:
    """The summary of a stuck build (`BUILD_TIMEOUT_S`) keeps the nodes still running, the
    JVM's deadlock report, the frames of the server threads serving a call and of dbt's
    node threads, and nothing that finished or idles. (The dumps are shaped as those of
    a stuck build seen on CI: dbt in `CloseSession`, the server in Hive's function
    registration.)"""
    dbt_log = "\n".join(
        [
            "23:31:19  39 of 72 START sql incremental model s.stg_inventory__customers . [RUN]",
            "23:31:19  40 of 72 START sql incremental model s.stg_inventory__orders .... [RUN]",
            "23:31:19  41 of 72 START test not_null_stg_x_id ........................ [RUN]",
            "23:31:25  40 of 72 OK created sql incremental model s.stg_inventory__orders [OK]",
            "23:31:26  41 of 72 PASS not_null_stg_x_id .............................. [PASS in 1s]",
            "Fatal Python error: Aborted",
            "",
            "Thread 0x00007f0746ffd6c0 (most recent call first):",
            '  File ".../multiprocessing/pool.py", line 579 in _handle_results',
            "",
            "Thread 0x00007f07565966c0 (most recent call first):",
            '  File ".../thrift/transport/TSocket.py", line 157 in read',
            '  File ".../TCLIService/TCLIService.py", line 218 in CloseSession',
            '  File ".../dbt/task/runnable.py", line 254 in call_runner',
        ]
    )
    serving = (
        '"HiveServer2-Handler-Pool: Thread-63" #63 prio=5\n'
        "   java.lang.Thread.State: TIMED_WAITING (on object monitor)\n"
        "\tat org.apache.hadoop.hive.ql.metadata.Hive.registerAllFunctionsOnce(Hive.java:218)\n"
        "\tat org.apache.hive.service.rpc.thrift.TCLIService$Processor$CloseSession.getResult"
    )
    idle = (
        '"HiveServer2-Handler-Pool: Thread-62" #62 prio=5\n   java.lang.Thread.State: WAITING\n'
        "\tat java.util.concurrent.SynchronousQueue.take"
    )
    dumps = f"===== thrift-server (pid 7)\n{idle}\n\n{serving}\n\nFound one Java-level deadlock:"
    summary = stuck_build_summary(dbt_log, dumps)
    assert "dbt was running (1):" in summary
    assert "stg_inventory__customers" in summary
    assert "stg_inventory__orders" not in summary and "not_null_stg_x_id" not in summary
    assert "Java deadlock: Found one Java-level deadlock:" in summary
    assert "Hive.registerAllFunctionsOnce" in summary and "SynchronousQueue" not in summary
    assert "in CloseSession" in summary and "_handle_results" not in summary
    assert "Java deadlock: none reported" in stuck_build_summary(dbt_log, idle)
