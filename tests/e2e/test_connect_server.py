"""The long-lived local Spark: `workbench.servers.connect_server` (make spark-up / spark-down)
and the profile's `connect` target.

One Spark Connect server, started as `make spark-up` starts it, in a Spark home of the module's
own (its warehouse, Derby metastore and lock). Its own server because the claims are the
server's: its settings, its lock, its stop. The clients are processes of their own, as a
user's dbt commands are (the test's worker holds a local session, and pyspark admits one kind
of session per process). What runs on the server is checked against the `local` target: its
settings, the UDFs' Python, a dbt command. The builds of the pipeline on a Connect server
(gold == oracle == local) run in the cluster module, on a server submitted to the cluster.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cdc_tools.local_spark import PROFILES_DIR, REPO_ROOT, local_spark_conf
from tests.conftest import COLD_JVM_OPTIONS
from workbench.consumer import CONSUMER_DIR
from workbench.servers import connect_server

# the `local` target's settings a session may change: the server must hold the same
RUNTIME_KEYS = (
    "spark.sql.session.timeZone",
    "spark.sql.shuffle.partitions",
    "spark.sql.sources.partitionOverwriteMode",
    "spark.sql.parquet.compression.codec",
    "spark.sql.parquet.outputTimestampType",
    "spark.sql.legacy.timeParserPolicy",
    "spark.sql.codegen.wholeStage",
)

CLIENT = textwrap.dedent(
    """
    import json, sys, warnings
    from pyspark.sql import SparkSession
    from pyspark.sql.connect.conf import RuntimeConf
    from cdc_tools.local_spark import get_local_spark

    calls = []
    for name in ("set", "_set_all", "isModifiable"):
        method = getattr(RuntimeConf, name)
        def counted(self, *args, _method=method, _name=name, **kwargs):
            calls.append(_name)
            return _method(self, *args, **kwargs)
        setattr(RuntimeConf, name, counted)
    keys, url, probe = json.loads(sys.argv[1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spark = get_local_spark()
        per_statement = []
        # what dbt-spark's `method: session` does for every statement
        for _ in range(3):
            before = len(calls)
            builder = SparkSession.builder.enableHiveSupport()
            for key, value in {"spark.remote": url, "spark.sql.ansi.enabled": "false"}.items():
                builder = builder.config(key, value)
            session = builder.getOrCreate()
            per_statement.append(calls[before:])
        settings = {key: session.conf.get(key) for key in keys}
        [row] = session.sql(
            f"select cast(cdc_landing_file_content('{probe}').content as string) as content"
        ).collect()
    print(json.dumps({
        "same_session": session is spark,
        "config_calls": per_statement,
        "settings": settings,
        "content": row["content"],
        "warnings": [str(w.message) for w in caught],
    }))
    """
)


CURSOR = textwrap.dedent(
    """
    import json, sys
    from dbt.adapters.spark.session import Cursor
    from dbt_common.exceptions import DbtRuntimeError
    from pyspark.sql import SparkSession
    from pyspark.sql.connect.client import SparkConnectClient

    calls = []
    for name in ("execute_command", "to_table", "schema", "_analyze"):
        method = getattr(SparkConnectClient, name)
        def counted(self, *args, _method=method, _name=name, **kwargs):
            calls.append(_name)
            return _method(self, *args, **kwargs)
        setattr(SparkConnectClient, name, counted)
    url = sys.argv[1]
    cursor = Cursor(server_side_parameters={"spark.remote": url})
    cursor.execute("select 1 as warm_up")  # the session hook patches the cursor class here
    out = {"patched": bool(getattr(Cursor, "_cdc_connect_cursor", False))}

    def run(sql):
        before = len(calls)
        cursor.execute(sql)
        rows = [list(r) for r in cursor.fetchall()]
        columns = [(d[0], d[1], d[6]) for d in cursor.description]
        return {"calls": calls[before:], "rows": rows, "columns": columns}

    spark = SparkSession.builder.remote(url).getOrCreate()
    out["reattachable"] = spark.client._use_reattachable_execute
    spark.sql("create database if not exists t_cursor")
    spark.sql("drop table if exists t_cursor.once")
    out["create"] = run("create table t_cursor.once (k int, v string) using parquet")
    out["insert"] = run("/* {\\"app\\": \\"dbt\\"} */ insert into t_cursor.once values (1, 'a')")
    query = "select k, v, cast(k as decimal(10, 2)) as d from t_cursor.once"
    out["query"] = run(query)
    out["expected_rows"] = [list(r) for r in spark.sql(query).collect()]
    out["expected_columns"] = [
        (f.name, f.dataType.simpleString(), f.nullable) for f in spark.sql(query).schema.fields
    ]
    out["properties"] = run("show tblproperties t_cursor.once")
    try:
        cursor.execute("select * from t_cursor.missing")
        out["error"] = None
    except DbtRuntimeError as error:
        out["error"] = str(error)
    print(json.dumps(out, default=str))
    """
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The server, as `make spark-up` starts it, on a free port and a Spark home of its own."""
    home = tmp_path_factory.mktemp("connect-home")
    env = {
        "CDC_SPARK_HOME": str(home),
        "CDC_SPARK_DRIVER_MEMORY": "1g",
        "CDC_JAVA_OPTIONS": COLD_JVM_OPTIONS,
    }
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        state = connect_server.up(port=0)
        try:
            yield state
        finally:
            connect_server.down(home)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _client_env(state: connect_server.ConnectState, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        **state.dbt_env(),
        "PYTHONPATH": str(REPO_ROOT),
        "DBT_PROFILES_DIR": str(PROFILES_DIR),
        **extra,
    }


def _client_run(state: connect_server.ConnectState, script: str, arg: str) -> dict:
    """Run `script` (python -c) as a client process of the server, with `arg`: the JSON of
    its last line."""
    done = subprocess.run(
        [sys.executable, "-c", script, arg],
        env=_client_env(state),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _lock_taken_by_another_process(home: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys; from pathlib import Path; from cdc_tools import warehouse_lock; "
        f"warehouse_lock.acquire_path(Path({str(home)!r}) / 'warehouse.lock')"
    )
    env = {**os.environ, "CDC_WAREHOUSE_LOCK_TIMEOUT": "0", "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )


def test_the_server_takes_the_local_targets_settings() -> None:
    """One source of truth: every setting of the `local` target reaches the server's
    spark-submit (the JVM's options and class path with what the session hook adds)."""
    local = local_spark_conf("local")
    conf = connect_server.server_conf("local", 15002)
    for key, value in local.items():
        if key in ("spark.driver.extraJavaOptions", "spark.driver.extraClassPath"):
            assert value.split()[0] in conf[key], key
        else:
            assert conf[key] == value, key
    assert conf["spark.sql.catalogImplementation"] == "hive"
    assert conf["spark.connect.grpc.binding.address"] == "127.0.0.1"
    argv = connect_server.submit_argv(conf)
    assert argv[argv.index("--master") + 1] == local["spark.master"]
    assert argv[argv.index("--driver-memory") + 1] == local["spark.driver.memory"]
    assert Path(argv[-1]).name.startswith("spark-connect_")
    sent = {arg.split("=", 1)[0] for arg in argv if "=" in arg and arg.startswith("spark.")}
    assert set(local) - set(connect_server.SUBMIT_OPTIONS) <= sent


def test_the_connect_target_sends_no_static_setting() -> None:
    """The profile's `connect` target names the server and nothing a session cannot set."""
    import yaml

    profiles = yaml.safe_load((PROFILES_DIR / "profiles.yml").read_text())
    target = profiles["cdc_spark"]["outputs"]["connect"]
    assert target["method"] == "session"
    assert list(target["server_side_parameters"]) == ["spark.remote"]


def test_the_server_holds_the_warehouse_lock(server) -> None:  # type: ignore[no-untyped-def]
    """A `local` command on the server's warehouse would open its Derby metastore: it is
    told who holds it (the server's JVM, which holds the lock for as long as it runs)."""
    refused = _lock_taken_by_another_process(Path(server.home))
    assert refused.returncode != 0
    assert "spark-connect-server" in refused.stderr, refused.stderr
    holder = json.loads((Path(server.home) / "warehouse.lock").read_text())
    assert holder["pid"] == server.pid


def test_a_client_runs_on_the_servers_settings_and_udfs(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A client process as dbt's: the session hook sends the one setting a session may change
    once (no static one, no warning), the server answers with the `local` target's
    settings, and the UDFs' Python runs on the server's workers."""
    probe = tmp_path / "probe.json"
    probe.write_text('{"op": "c"}\n')
    result = _client_run(server, CLIENT, json.dumps([list(RUNTIME_KEYS), server.url, str(probe)]))
    assert result["same_session"]
    # the first statement: is each setting one a session may change (asked once per
    # setting), then the one that is, set; every later statement: no round trip
    first, *later = result["config_calls"]
    assert sorted(first) == ["isModifiable", "isModifiable", "set"], result
    assert later == [[], []], result
    assert not [w for w in result["warnings"] if "CANNOT_MODIFY_CONFIG" in w], result["warnings"]
    local = local_spark_conf("local")
    assert result["settings"] == {key: local[key] for key in RUNTIME_KEYS}
    assert result["content"] == probe.read_text()  # read by the landing UDF on the server


def test_dbt_sparks_cursor_sends_one_call_per_statement(server) -> None:  # type: ignore[no-untyped-def]
    """dbt-spark's session cursor on a Connect client (cdc_tools.connect_cursor): each
    statement is one call to the server (no `spark.sql` then `schema` then `collect`, no
    reattachable execution to release), an insert runs once, a query's rows and columns are
    the ones `spark.sql(...).collect()` and `.schema` give, and an analysis error is dbt's
    runtime error, raised by `execute`."""
    result = _client_run(server, CURSOR, server.url)
    assert result["patched"]
    # no reattachable execution: no second call per statement to release it
    assert result["reattachable"] is False
    for statement in ("create", "insert", "query", "properties"):
        assert result[statement]["calls"] == ["to_table"], (statement, result[statement])
    assert result["query"]["rows"] == result["expected_rows"] == [[1, "a", "1.00"]]
    assert result["query"]["columns"] == result["expected_columns"]
    assert ["k", "int", True] in result["query"]["columns"]
    assert result["create"]["rows"] == [] and result["insert"]["rows"] == []
    assert "TABLE_OR_VIEW_NOT_FOUND" in (result["error"] or ""), result["error"]


def test_dbt_runs_on_the_connect_target(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`dbt run` on the `connect` target, as a user runs it: the model is built on the
    server, where another client reads it."""
    dbt = str(Path(sys.executable).parent / "dbt")
    target = tmp_path / "target"
    done = subprocess.run(
        [dbt, "run", "--select", "cdc_reason_codes", "--project-dir", str(CONSUMER_DIR),
         "--target-path", str(target), "--log-path", str(target / "logs")],
        env=_client_env(server, CDC_SCHEMA="t_connect"),
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert "CANNOT_MODIFY_CONFIG" not in done.stdout + done.stderr
    code = (
        "from cdc_tools.local_spark import get_local_spark; "
        "print(get_local_spark().table('t_connect_silver.cdc_reason_codes').count())"
    )
    read = subprocess.run(
        [sys.executable, "-c", code],
        env=_client_env(server),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert read.returncode == 0, read.stderr[-3000:]
    assert int(read.stdout.strip().splitlines()[-1]) > 10


def test_down_stops_the_server_and_frees_the_warehouse(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`make spark-down`: the server's process is gone, and with it its lock."""
    monkeypatch.setenv("CDC_SPARK_HOME", str(tmp_path))
    monkeypatch.setenv("CDC_SPARK_DRIVER_MEMORY", "512m")
    monkeypatch.setenv("CDC_JAVA_OPTIONS", COLD_JVM_OPTIONS)
    state = connect_server.up(port=0)
    assert connect_server.up(port=0).pid == state.pid  # up again: the running one
    assert connect_server.down(tmp_path) is not None
    assert not connect_server.alive(state.pid)
    assert connect_server.read_state(tmp_path) is None
    assert _lock_taken_by_another_process(tmp_path).returncode == 0
    assert connect_server.down(tmp_path) is None


def test_no_server_at_the_endpoint_is_said_with_the_remedy() -> None:
    """A `connect` command with no server up: one line naming the endpoint and the remedy,
    not gRPC's retries (a listening socket passes the check)."""
    import socket

    from cdc_tools import session_hook
    from workbench.servers.cluster import free_port

    url = f"sc://127.0.0.1:{free_port()}"
    with pytest.raises(session_hook.ConnectServerUnreachable, match="make spark-up"):
        session_hook.check_reachable(url)
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        session_hook.check_reachable(f"sc://127.0.0.1:{listening.getsockname()[1]}/;user_id=x")
