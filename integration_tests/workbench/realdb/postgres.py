"""A throwaway PostgreSQL server on 127.0.0.1, in a folder of its own, for logical decoding.

The server binaries (`initdb`, `pg_ctl`, `postgres`, `psql`) are found on PATH, else in
/usr/lib/postgresql/<version>/bin (Debian's `postgresql` package), newest first. PostgreSQL
refuses to run as root: as root, the server runs as the `postgres` user (else `nobody`), and
its folder is theirs.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from workbench.realdb.server import ThrowawayServer, open_session
from workbench.servers.cluster import free_port

INSTALL_HINT = (
    "PostgreSQL's server binaries (initdb, pg_ctl, postgres, psql) were not found on PATH or "
    "in /usr/lib/postgresql/*/bin. Install them with: sudo apt-get install -y postgresql "
    "(Debian/Ubuntu), or brew install postgresql@15 (macOS)."
)


class PostgresMissing(RuntimeError):
    """The PostgreSQL server binaries are not installed."""


def find_bin_dir() -> Path:
    """The folder holding initdb, pg_ctl, postgres and psql."""
    # the server itself on PATH (Debian puts only wrappers of the client tools there)
    server = shutil.which("postgres")
    if server and all(
        (Path(server).parent / tool).exists() for tool in ("initdb", "pg_ctl", "psql")
    ):
        return Path(server).parent
    for folder in sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True
    ):
        if all((Path(folder) / tool).exists() for tool in ("initdb", "pg_ctl", "postgres", "psql")):
            return Path(folder)
    raise PostgresMissing(INSTALL_HINT)


def _server_user() -> str | None:
    """The user the server runs as when this process is root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root, and no `postgres` or `nobody` user to run PostgreSQL as")


# Logical decoding for Debezium's pgoutput plugin; durability off (a throwaway server). Each
# source database keeps its replication slot (`cdc_<database>`) for the server's life, and the
# suite's real-database modules share one server per worker: 10 sources when one worker runs
# them all (8 slots ran out when the modules' order put them together).
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "wal_level": "logical",
    "max_replication_slots": "32",
    "max_wal_senders": "16",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "shared_buffers": "'32MB'",
    "max_connections": "30",
    "timezone": "'UTC'",
}


@dataclass
class PostgresServer(ThrowawayServer):
    """One server: `start()`, `sql(...)`, `stop()` (also `with PostgresServer() as pg:`)."""

    bin_dir: Path = field(default_factory=find_bin_dir)
    port: int = field(default_factory=free_port)
    database: str = "shop"
    user: str = "postgres"
    password: str = "postgres"
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="cdc-postgres-")))

    @property
    def data_dir(self) -> Path:
        return self.folder / "data"

    def _as_server_user(self, argv: list[str]) -> list[str]:
        user = _server_user()
        return argv if user is None else ["runuser", "-u", user, "--", *argv]

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(
            self._as_server_user(argv), capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stdout}{done.stderr}\n{tail}")

    def start(self) -> PostgresServer:
        user = _server_user()
        if user is not None:
            shutil.chown(self.folder, user)
        if not self.data_dir.exists():
            self._run(
                [str(self.bin_dir / "initdb"), "-D", str(self.data_dir), "-U", self.user]
                + ["--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]
            )
            settings = {**SETTINGS, "port": str(self.port)}
            settings["unix_socket_directories"] = f"'{self.folder}'"
            with (self.data_dir / "postgresql.conf").open("a") as conf:
                conf.writelines(f"{name} = {value}\n" for name, value in settings.items())
        self._run(
            [
                str(self.bin_dir / "pg_ctl"),
                "-D",
                str(self.data_dir),
                "-l",
                str(self.folder / "server.log"),
            ]
            + ["-w", "-t", "60", "start"]
        )
        if not self.sql(
            f"select 1 from pg_database where datname = '{self.database}'", database="postgres"
        ):
            self.sql(f"create database {self.database}", database="postgres")
        return self

    def stop(self) -> None:
        if (self.data_dir / "postmaster.pid").exists():
            self._run(
                [str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "stop"]
            )

    def sql(self, script: str, database: str | None = None) -> list[str]:
        """Run `script` with psql (stop at the first error), the lines it prints (unaligned,
        tuples only): one line per row of a query."""
        done = subprocess.run(
            [*self._psql_argv(database), "-f", "-"],
            input=script,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PGTZ": "UTC"},
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"psql failed: {done.stderr.strip()}\n--- script ---\n{script[:2000]}"
            )
        # lines end at "\n" only: str.splitlines() would also split a value at U+2028 (and
        # other Unicode line breaks) that psql prints as it is
        return [line for line in done.stdout.split("\n") if line]

    def session(self, database: str | None = None) -> subprocess.Popen[str]:
        """An interactive psql session (open_session)."""
        return open_session(self._psql_argv(database), env={**os.environ, "PGTZ": "UTC"})

    def _psql_argv(self, database: str | None) -> list[str]:
        """psql on `database` (else the server's), unaligned tuples, stopping at an error."""
        argv = [str(self.bin_dir / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
        argv += ["-h", "127.0.0.1", "-p", str(self.port), "-U", self.user]
        return argv + ["-d", database or self.database]
