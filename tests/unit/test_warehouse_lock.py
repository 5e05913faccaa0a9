"""cdc_tools.warehouse_lock: one process at a time on a local warehouse, no Spark needed."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cdc_tools import warehouse_lock
from cdc_tools.local_spark import REPO_ROOT

HOLD = """
import sys, time
from pathlib import Path
from cdc_tools import warehouse_lock
warehouse_lock.acquire_path(Path(sys.argv[1]))
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


@pytest.fixture(autouse=True)
def _release() -> Iterator[None]:
    yield
    warehouse_lock.release_all()


def _hold(lock_file: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding `lock_file` for `seconds` (returns once it holds it)."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock_file), str(seconds), "--marker"],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "held"
    return process


def test_lock_path_is_beside_the_derby_metastore(tmp_path: Path) -> None:
    url = f"jdbc:derby:;databaseName={tmp_path}/metastore_db;create=true"
    key = warehouse_lock.CONNECTION_URL_KEY
    assert warehouse_lock.lock_path({key: url}) == tmp_path / "warehouse.lock"
    assert warehouse_lock.lock_path({key: f"jdbc:derby:{tmp_path}/m;create=true"}) == (
        tmp_path / "warehouse.lock"
    )
    relative = warehouse_lock.lock_path({key: "jdbc:derby:;databaseName=.spark/metastore_db"})
    assert relative == Path.cwd() / ".spark" / "warehouse.lock"
    assert warehouse_lock.lock_path({}) is None
    assert warehouse_lock.lock_path({key: "jdbc:derby:memory:db;create=true"}) is None
    assert warehouse_lock.lock_path({key: "jdbc:derby://host:1527/db"}) is None
    assert warehouse_lock.lock_path({key: "jdbc:postgresql://host/metastore"}) is None


def test_a_busy_warehouse_stops_with_the_command_and_the_remedy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock_file = tmp_path / "warehouse.lock"
    holder = _hold(lock_file, 30)
    try:
        monkeypatch.setenv(warehouse_lock.TIMEOUT_ENV, "0")
        stream = io.StringIO()
        with pytest.raises(warehouse_lock.WarehouseBusyError) as raised:
            warehouse_lock.acquire_path(lock_file, stream=stream)
        message = str(raised.value)
        assert f"pid {holder.pid} (-c " in message and "--marker" in message
        assert "run this one again" in message and "CDC_SPARK_HOME" in message
        assert stream.getvalue() == "", "stopping at once prints no waiting line"

        monkeypatch.setenv(warehouse_lock.TIMEOUT_ENV, "1")
        started = time.monotonic()
        with pytest.raises(warehouse_lock.WarehouseBusyError, match="waited 1 s"):
            warehouse_lock.acquire_path(lock_file, stream=stream)
        assert time.monotonic() - started >= 1.0
        assert len(stream.getvalue().splitlines()) == 1
        assert f"pid {holder.pid}" in stream.getvalue()
        # the waiters opened the file without truncating it: the record is still the holder's
        assert warehouse_lock.holder(lock_file)["pid"] == holder.pid
    finally:
        holder.kill()
        holder.wait()


def test_a_second_process_waits_with_one_line_then_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(warehouse_lock.TIMEOUT_ENV, raising=False)
    lock_file = tmp_path / "spark" / "warehouse.lock"
    holder = _hold(lock_file, 2)
    stream = io.StringIO()
    warehouse_lock.acquire_path(lock_file, stream=stream)
    assert holder.wait(timeout=10) == 0, "the lock was taken only once the holder had ended"
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and f"in use by pid {holder.pid}" in lines[0], lines
    assert "waiting" in lines[0]
    assert warehouse_lock.holder(lock_file)["pid"] == os.getpid()

    # re-entrant in this process, exclusive for others
    warehouse_lock.acquire_path(lock_file, stream=stream)
    other = subprocess.run(
        [sys.executable, "-c", HOLD, str(lock_file), "0"],
        cwd=REPO_ROOT,
        env={
            "PYTHONPATH": str(REPO_ROOT),
            "PATH": "/usr/bin:/bin",
            "CDC_WAREHOUSE_LOCK_TIMEOUT": "0",
        },
        capture_output=True,
        text=True,
    )
    assert other.returncode != 0 and "WarehouseBusyError" in other.stderr
