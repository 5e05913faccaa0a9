"""`make demo` checks itself: its simulated sources are listed as replayed, so the
quiet-source test does not warn of them (finding 6 of issue #31), and a warning of its
build counts as a failed check."""

from __future__ import annotations

import os
from fnmatch import fnmatch
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import RIG_PYTHONPATH
from workbench.demo import (
    DemoSchemaInUse,
    demo_configs,
    forget_earlier_demo,
    replayed_sources,
    warnings_of,
)
from workbench.simulator import simulate


def test_the_demo_lists_every_topic_it_simulates_as_replayed() -> None:
    patterns = replayed_sources(demo_configs())
    topics = {m.topic for config in demo_configs() for m in simulate(config).messages}
    assert topics
    # cdc_source_matches: glob patterns, case-insensitive
    assert [t for t in topics if not any(fnmatch(t.lower(), p.lower()) for p in patterns)] == []
    assert not any(fnmatch("crm.dbo.customers", p) for p in patterns)  # a real source's topic


def test_a_warning_of_the_demo_build_is_reported() -> None:
    def node(name: str, status: str, message: str | None = None) -> SimpleNamespace:
        return SimpleNamespace(node=SimpleNamespace(name=name), status=status, message=message)

    result = SimpleNamespace(
        result=SimpleNamespace(
            results=[
                node("customers", "success"),
                node("cdc_quiet_sources_x", "warn", "Got 1 result, configured to warn if != 0"),
                node("unique_x", "pass"),
            ]
        )
    )
    assert warnings_of(result) == ["cdc_quiet_sources_x: Got 1 result, configured to warn if != 0"]
    assert warnings_of(SimpleNamespace(result=None)) == []


@pytest.mark.spark
def test_a_second_demo_starts_bronze_again_and_spares_other_landings(
    spark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """`make demo` rewrites its landing folder: bronze's messages of the previous run's
    files are dropped (else a changed simulator leaves the old rows in gold: a second
    demo after an upgrade failed its checks), but never messages of other folders."""
    monkeypatch.setenv("CDC_SCHEMA", "t_demo_again")
    landing = tmp_path / "landing" / "demo"
    bronze = "t_demo_again_bronze"
    spark.sql(f"drop database if exists {bronze} cascade")
    spark.sql(f"create database {bronze}")
    try:
        assert not forget_earlier_demo(spark, landing)  # no bronze yet
        spark.createDataFrame(
            [(f"file:{landing}/DEMO_DB2/batch-0.json",)], "_source_file string"
        ).write.saveAsTable(f"{bronze}.bronze_cdc_messages")
        assert forget_earlier_demo(spark, landing)
        assert not spark.catalog.tableExists(f"{bronze}.bronze_cdc_messages")

        spark.createDataFrame(
            [(f"file:{landing}/DEMO_DB2/batch-0.json",), (f"file:{tmp_path}/crm/0.json",)],
            "_source_file string",
        ).write.saveAsTable(f"{bronze}.bronze_cdc_messages")
        with pytest.raises(DemoSchemaInUse, match="1 messages of files outside .*CDC_SCHEMA="):
            forget_earlier_demo(spark, landing)
        assert spark.table(f"{bronze}.bronze_cdc_messages").count() == 2
    finally:
        spark.sql(f"drop database if exists {bronze} cascade")


def test_the_demo_on_the_connect_target_without_a_server_says_how_to_start_one(
    tmp_path: Path,
) -> None:
    """`DBT_TARGET=connect make demo` before `make spark-up`: one line with the remedy, no
    stack trace, exit code 1."""
    import subprocess
    import sys

    from cdc_tools.local_spark import PROFILES_DIR
    from workbench.servers.cluster import free_port

    env = {
        **os.environ,
        "DBT_TARGET": "connect",
        "CDC_SPARK_REMOTE": f"sc://127.0.0.1:{free_port()}",
        "CDC_LANDING_DIR": str(tmp_path / "landing"),
        "DBT_PROFILES_DIR": str(PROFILES_DIR),
        "PYTHONPATH": RIG_PYTHONPATH,
    }
    done = subprocess.run(
        [sys.executable, "-m", "workbench.demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no Spark Connect server answers" in done.stderr and "make spark-up" in done.stderr
    assert "Traceback" not in done.stderr, done.stderr
