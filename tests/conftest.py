"""Shared fixtures: one local Spark session per pytest session, dbt run in-process on it.

The embedded Derby metastore admits one process, so dbt never runs as a subprocess here:
`cdc_tools.dbt_invoke.run_dbt` calls dbtRunner, whose `method: session` connection picks up
the session this file starts. Everything the session writes (warehouse, metastore, logs)
lives in a temporary folder, and each test module uses its own schema prefix.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

os.environ.setdefault("TZ", "UTC")
# The data tests of every build here check whole tables (a user's `dbt build` checks what it
# loaded: var cdc_test_scope); tests of the scoping pass `cdc_test_scope: loaded` themselves.
os.environ.setdefault("CDC_TEST_SCOPE", "all")
# The consumer project's dbt unit tests run in tests/e2e/test_unit_tests.py, not in every
# build here (each costs 2 to 5 s, and they check no warehouse): dbt's own switch.
os.environ.setdefault("DBT_EXCLUDE_RESOURCE_TYPES", "unit_test")
# Every build here is small: interpreted expressions instead of generated code (the
# profile's CDC_SPARK_CODEGEN) took 12% off a small build. The generated-code path still
# runs in the suite: the cluster module's Thrift Server keeps Spark's default.
os.environ.setdefault("CDC_SPARK_CODEGEN", "false")
# The JVM options of the JVMs a test starts cold for one or two builds (the processes of the
# killed-build, concurrency and console tests, the cluster's JVMs): C1 compiles alone. Two
# JVMs share the 2 cores, and C2's compiling through a cold JVM's first builds (81 of a
# cold demo build's 200 CPU-seconds) is taken from the other worker; C1's code needs the
# larger code cache (at its 48 MB default the sweeper flushes and recompiles). The workers'
# own sessions keep C2: they build for the whole run, where C2's code pays for itself
# (docs/decisions/0011-two-workers-and-cold-jvms.md).
# (CDC_TEST_COLD_JVM_OPTIONS replaces them, to measure against another choice)
COLD_JVM_OPTIONS = os.environ.get(
    "CDC_TEST_COLD_JVM_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=512m"
)
# PYTHONPATH of the suite's subprocesses, as the Makefile's: the package's tooling (cdc_tools)
# at the root, the test rig (workbench) beside the consumer project
RIG_PYTHONPATH = os.pathsep.join(
    str(Path(__file__).resolve().parents[1] / folder) for folder in ("", "integration_tests")
)
if hasattr(time, "tzset"):
    time.tzset()


def _use_the_consumer_project() -> None:
    """dbt runs on the consumer project (integration_tests/), which installs the package at
    the repository's root as a user's project does: DBT_PROJECT_DIR names it, and its
    `dbt_packages/cdc_lakehouse` link is made as `dbt deps` makes it."""
    from workbench.consumer import CONSUMER_DIR, link_package

    os.environ["DBT_PROJECT_DIR"] = str(CONSUMER_DIR)
    link_package(CONSUMER_DIR)


_use_the_consumer_project()


def process_env(spark_home: Path, schema: str, landing: Path, **extra: str) -> dict[str, str]:
    """The environment of a process a test starts (its own Spark home and metastore: the
    test's process holds the session's): this repo on the path, its profiles, loopback, the
    cold JVM's options (COLD_JVM_OPTIONS), a schema prefix and landing folder; `extra` adds
    or replaces variables."""
    from cdc_tools.local_spark import PROFILES_DIR

    return {
        **os.environ,
        "CDC_SPARK_HOME": str(spark_home),
        "CDC_JAVA_OPTIONS": COLD_JVM_OPTIONS,
        "CDC_SCHEMA": schema,
        "CDC_LANDING_DIR": str(landing),
        "DBT_PROFILES_DIR": str(PROFILES_DIR),
        "PYTHONPATH": RIG_PYTHONPATH,
        "SPARK_LOCAL_IP": "127.0.0.1",
        **extra,
    }


def wait_until_it_holds_the_warehouse(
    spark_home: Path, process: subprocess.Popen[bytes], log: Path, timeout: float
) -> None:
    """Wait until `process` holds the warehouse of `spark_home` (its lock file names it), at
    most `timeout` seconds (without a lock there is nothing to see: the test's next steps say
    what happened); fails with the tail of `log` if the process ends first."""
    from cdc_tools.warehouse_lock import LOCK_FILE_NAME, holder
    from workbench.servers.cluster import poll_until

    lock_file = spark_home / LOCK_FILE_NAME

    def holds() -> bool:
        if holder(lock_file).get("pid") == process.pid:
            return True
        assert process.poll() is None, log.read_text(errors="replace")[-4000:]
        return False

    poll_until(holds, timeout, 0.2)


@pytest.fixture(scope="session")
def spark_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("spark-home")
    os.environ["CDC_SPARK_HOME"] = str(home)
    os.environ["CDC_SPARK_MASTER"] = os.environ.get("CDC_TEST_SPARK_MASTER", "local[2]")
    os.environ["CDC_SPARK_DRIVER_MEMORY"] = os.environ.get("CDC_TEST_DRIVER_MEMORY", "3g")
    os.environ["CDC_LOG4J_CONFIG"] = str(
        Path(__file__).resolve().parents[1] / "profiles" / "log4j2.properties"
    )
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    return home


@pytest.fixture(scope="session")
def spark(spark_home: Path) -> Iterator[object]:
    from cdc_tools.local_spark import get_local_spark

    session = get_local_spark()
    yield session
    session.stop()


def missing_dependency(message: str) -> NoReturn:
    """What a test needs is missing: it skips on a developer's machine and fails under CI
    (`CI=true`), where no test may skip."""
    if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
        pytest.fail(message + " (CI=true: a missing dependency fails the test)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A KRaft Kafka broker for the module (tests/kafka_broker.py), stopped after it (also
    when a test failed). Its jars missing skips, and fails under CI (`CI=true`)."""
    from tests.kafka_broker import broker_jars_missing, kafka_broker

    missing = broker_jars_missing()
    if missing:
        missing_dependency(missing)
    with kafka_broker(tmp_path_factory.mktemp("kafka")) as running:
        yield running


@pytest.fixture(scope="module")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """An S3-compatible server (s3proxy) for the module (tests/s3_server.py), stopped after
    it (also when a test failed). Its jar missing skips, and fails under CI (`CI=true`)."""
    from tests.s3_server import s3_server as start
    from tests.s3_server import s3_server_missing

    missing = s3_server_missing()
    if missing:
        missing_dependency(missing)
    with start(tmp_path_factory.mktemp("s3")) as running:
        yield running


@dataclass
class DbtProject:
    """dbt bound to one schema prefix and one landing folder, sharing the Spark session."""

    spark: object
    schema: str
    landing: Path
    target_path: Path

    def run(
        self,
        *args: str,
        vars: Mapping[str, object] | None = None,
        expect_success: bool = True,
        project_dir: Path | None = None,
    ):  # type: ignore[no-untyped-def]
        """Run dbt on the consumer project, or on a copy at `project_dir` (`copy_project`)."""
        from cdc_tools.dbt_invoke import run_dbt

        os.environ["CDC_SCHEMA"] = self.schema
        os.environ["CDC_LANDING_DIR"] = str(self.landing)
        return run_dbt(
            args,
            vars=vars,
            target_path=self.target_path,
            expect_success=expect_success,
            project_dir=project_dir,
        )

    def copy_project(self, destination: Path) -> Path:
        """A copy of the consumer project, on the repository's package (to edit a contract
        or add a macro in a test)."""
        from workbench.consumer import copy_project

        return copy_project(destination)

    def sql(self, query: str) -> list[dict[str, object]]:
        return [row.asDict() for row in self.spark.sql(query).collect()]  # type: ignore[attr-defined]

    def landed_under(self, folder: str) -> str:
        """A `like` pattern matching the `_source_file` of every file landed under
        `<landing>/<folder>/` (a shared warehouse's part or fixture group)."""
        return f"%{self.landing.name}/{folder}/%"

    def layer(self, name: str) -> str:
        return f"{self.schema}_{name}"

    def drop_schemas(self) -> None:
        for layer in ("bronze", "silver", "gold"):
            self.spark.sql(f"drop database if exists {self.layer(layer)} cascade")  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def dbt_project(
    request: pytest.FixtureRequest, spark: object, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[DbtProject]:
    """A clean schema prefix and landing folder for one test module."""
    name = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    base = tmp_path_factory.mktemp(name)
    project = DbtProject(
        spark=spark,
        schema=f"t_{name}"[:40],
        landing=base / "landing",
        target_path=base / "target",
    )
    project.landing.mkdir()
    project.drop_schemas()
    yield project
    project.drop_schemas()


@pytest.fixture(scope="session")
def stream(spark: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The shared stream (tests/e2e/stream.py): one warehouse for every registered part."""
    from tests.e2e.stream import Stream

    base = tmp_path_factory.mktemp("stream")
    project = DbtProject(
        spark=spark, schema="t_stream", landing=base / "landing", target_path=base / "target"
    )
    project.landing.mkdir()
    project.drop_schemas()
    yield Stream(project)
    project.drop_schemas()


@pytest.fixture
def streamed(request: pytest.FixtureRequest, stream) -> DbtProject:  # type: ignore[no-untyped-def]
    """The shared stream's project, built up to the step the test is marked with."""
    from tests.e2e.stream import step_of

    return stream.at(step_of(request.node))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests of the shared stream run first, ordered by step whatever their module (their
    modules are one pytest-xdist scope: `pytest_xdist_make_scheduler` below)."""
    from tests.e2e.stream import STEPS, STREAM_MODULES, step_of

    streamed = [item for item in items if item.get_closest_marker("stream")]
    for item in streamed:
        if item.nodeid.split("::")[0] not in STREAM_MODULES:
            raise pytest.UsageError(f"{item.nodeid}: list its module in STREAM_MODULES")
    streamed.sort(key=lambda item: STEPS.index(step_of(item)))  # stable: module order kept
    others = [item for item in items if not item.get_closest_marker("stream")]
    others.sort(key=_longest_first)  # stable: the other modules keep their order
    items[:] = streamed + others


# The modules that take longest (docs/decisions/0010-shared-test-stream.md), in that
# order: pytest-xdist hands out the scopes in collection order (the scheduler below turns
# its reordering by test count off), so the long ones start first and the two workers
# finish together.
LONGEST_FIRST: tuple[str, ...] = (
    "tests/e2e/test_delta_gold.py",
    "tests/cluster/test_thrift_cluster.py",
    "tests/e2e/test_iceberg_gold.py",
    "tests/e2e/test_object_store.py",
    "tests/corpus/",
    "tests/e2e/test_crash_recovery.py",
    "tests/e2e/test_kafka_landing.py",
    "tests/realdb/",
    "tests/e2e/test_unavailable_values.py",
    "tests/e2e/test_data_tests_catch_faults.py",
)


def _longest_first(item: pytest.Item) -> int:
    module = item.nodeid.split("::")[0]
    ranks = [rank for rank, prefix in enumerate(LONGEST_FIRST) if module.startswith(prefix)]
    return ranks[0] if ranks else len(LONGEST_FIRST)


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: without xdist, one process
def pytest_xdist_make_scheduler(config: pytest.Config, log):  # type: ignore[no-untyped-def]
    """`--dist loadfile`, with the modules of the shared stream as one scope: one worker
    runs them all, in the order above, on one warehouse; likewise the corpus modules, which
    share warehouses of their own (`CORPUS_MODULES`, tests/corpus/shared.py). (xdist's
    `loadgroup` cannot do it under pytest 9: the group suffix it writes to `item._nodeid`
    is never read.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    config.option.loadscopereorder = False  # the order of `pytest_collection_modifyitems`
    from xdist.scheduler import LoadFileScheduling

    from tests.corpus.shared import CORPUS_MODULES
    from tests.e2e.stream import STREAM_MODULES

    class StreamOrFileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = super()._split_scope(nodeid)
            if module in CORPUS_MODULES:
                return "corpus"
            return "stream" if module in STREAM_MODULES else module

    return StreamOrFileScheduling(config, log)


CORPUS_ENV = "CDC_CORPUS_DIR"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """../shared/corpus (override with CDC_CORPUS_DIR). Tests skip where it is absent on a
    developer's machine; under CI (`CI=true`) its absence fails them."""
    default = Path(__file__).resolve().parents[2] / "shared" / "corpus"
    path = Path(os.environ.get(CORPUS_ENV, default))
    if not path.is_dir():
        missing_dependency(f"CDC corpus not found at {path}: set {CORPUS_ENV} to run corpus tests")
    return path


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    """The suite's budget made visible: each module's time (setup, call and teardown of its
    tests, summed over both workers) and the total, after pytest's slowest durations."""
    per_module: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            nodeid = getattr(report, "nodeid", "")
            if nodeid and hasattr(report, "duration") and getattr(report, "when", None):
                module = nodeid.split("::")[0]
                per_module[module] = per_module.get(module, 0.0) + float(report.duration)
    if not per_module:
        return
    terminalreporter.write_sep("=", "time per test module (s; budget: tests/README.md)")
    for module, seconds in sorted(per_module.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{seconds:8.1f}  {module}")
    terminalreporter.write_line(f"{sum(per_module.values()):8.1f}  all modules (both workers)")
