"""Real servers for the tests of this folder: one throwaway PostgreSQL and one MariaDB per
pytest session (per worker), started from the binaries on the machine and stopped after the
last test that reads them, also when a test fails."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import missing_dependency
from workbench.realdb.capture import CaptureUnavailable, build
from workbench.realdb.mariadb import MariaDbMissing, MariaDbServer, find_binaries
from workbench.realdb.postgres import PostgresMissing, PostgresServer, find_bin_dir
from workbench.realdb.server import Server


def _running(server: Server) -> Iterator[Server]:
    """The server started, then stopped and its folder removed, also when a test fails."""
    try:
        server.start()
        yield server
    finally:
        server.remove()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server on 127.0.0.1 (a free port) with `wal_level=logical`, in a
    temporary folder; `pg_ctl stop -m fast` and the folder removed at the end."""
    try:
        bin_dir = find_bin_dir()
    except PostgresMissing as exc:
        missing_dependency(str(exc))
    yield from _running(PostgresServer(bin_dir=bin_dir))


@pytest.fixture(scope="session")
def debezium_capture() -> None:
    """The Debezium capture of capture/, built (by `make setup`, or here when its sources
    changed)."""
    try:
        build()
    except CaptureUnavailable as exc:
        missing_dependency(str(exc))


@pytest.fixture(scope="session")
def mariadb() -> Iterator[MariaDbServer]:
    """A MariaDB server on 127.0.0.1 (a free port) with a row binlog (full images), in a
    temporary folder; shut down and the folder removed at the end."""
    try:
        binaries = find_binaries()
    except MariaDbMissing as exc:
        missing_dependency(str(exc))
    yield from _running(MariaDbServer(binaries=binaries))
