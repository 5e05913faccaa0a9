"""A throwaway MariaDB server on 127.0.0.1, in a folder of its own, with a row binlog.

The binaries (`mariadb-install-db`, `mariadbd`, the `mariadb` client) are found on PATH, else
in /usr/sbin and /usr/bin (Debian's `mariadb-server` package). As root, the server runs as
root (`--user=root`); the folder is removed at the end. Statements run through the `mariadb`
client on the server's socket, as the `root` account `mariadb-install-db` creates; Debezium
connects over TCP as the account `cdc`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from workbench.realdb.server import ThrowawayServer, open_session
from workbench.servers.cluster import free_port, poll_until

INSTALL_HINT = (
    "MariaDB's server binaries ({missing}) were not found on PATH or in /usr/sbin, /usr/bin. "
    "Install them with: sudo apt-get install -y --no-install-recommends mariadb-server "
    "(Debian/Ubuntu), or brew install mariadb (macOS)."
)
TOOLS = ("mariadb-install-db", "mariadbd", "mariadb")


class MariaDbMissing(RuntimeError):
    """The MariaDB server binaries are not installed."""


def find_binaries() -> dict[str, Path]:
    """Each of TOOLS, on PATH or in /usr/sbin, /usr/bin."""
    search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/bin"])
    found = {tool: shutil.which(tool, path=search) for tool in TOOLS}
    missing = [tool for tool, path in found.items() if path is None]
    if missing:
        raise MariaDbMissing(INSTALL_HINT.format(missing=", ".join(missing)))
    return {tool: Path(path) for tool, path in found.items() if path is not None}


# A row binlog with full images for Debezium; durability off (a throwaway server); UTC.
SETTINGS: dict[str, str] = {
    "bind-address": "127.0.0.1",
    "log-bin": "binlog",
    "binlog-format": "ROW",
    "binlog-row-image": "FULL",
    "server-id": "1",
    "default-time-zone": "+00:00",
    "character-set-server": "utf8mb4",
    "collation-server": "utf8mb4_unicode_ci",
    "innodb-flush-log-at-trx-commit": "0",
    "sync-binlog": "0",
    "innodb-buffer-pool-size": "32M",
    "skip-name-resolve": "ON",
    "max-connections": "30",
}


@dataclass
class MariaDbServer(ThrowawayServer):
    """One server: `start()`, `sql(...)`, `stop()` (also `with MariaDbServer() as db:`)."""

    binaries: dict[str, Path] = field(default_factory=find_binaries)
    port: int = field(default_factory=free_port)
    user: str = "cdc"
    password: str = "cdc"
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="cdc-mariadb-")))
    process: subprocess.Popen[bytes] | None = None

    @property
    def data_dir(self) -> Path:
        return self.folder / "data"

    @property
    def socket(self) -> Path:
        return self.folder / "mariadb.sock"

    def _log_tail(self) -> str:
        log = self.folder / "server.log"
        return log.read_text(errors="replace")[-3000:] if log.exists() else ""

    def _install(self) -> None:
        argv = [str(self.binaries["mariadb-install-db"]), "--no-defaults"]
        argv += [f"--datadir={self.data_dir}", "--auth-root-authentication-method=normal"]
        argv += ["--skip-test-db", "--skip-name-resolve"]
        if os.geteuid() == 0:
            argv.append("--user=root")
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"mariadb-install-db failed:\n{done.stdout}{done.stderr}")

    def _server_argv(self) -> list[str]:
        argv = [str(self.binaries["mariadbd"]), "--no-defaults", f"--datadir={self.data_dir}"]
        argv += [f"--port={self.port}", f"--socket={self.socket}"]
        argv += [f"--pid-file={self.folder / 'mariadb.pid'}"]
        argv += [f"--log-error={self.folder / 'server.log'}"]
        argv += [f"--log-basename={self.folder / 'mariadb'}"]
        argv += [f"--{name}={value}" for name, value in SETTINGS.items()]
        if os.geteuid() == 0:
            argv.append("--user=root")
        return argv

    def _wait_until_ready(self, timeout: float = 60.0) -> None:
        def ready() -> bool:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"mariadbd ended at start:\n{self._log_tail()}")
            return self.socket.exists() and self._ping()

        if poll_until(ready, timeout, 0.2):
            return
        raise RuntimeError(f"mariadbd did not answer within {timeout:.0f} s:\n{self._log_tail()}")

    def _ping(self) -> bool:
        done = subprocess.run(
            self._client_argv(None) + ["-e", "select 1"], capture_output=True, check=False
        )
        return done.returncode == 0

    def start(self) -> MariaDbServer:
        if not self.data_dir.exists():
            self._install()
            fresh = True
        else:
            fresh = False
        self.process = subprocess.Popen(
            self._server_argv(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._wait_until_ready()
        if fresh:
            self.sql(
                f"create user '{self.user}'@'127.0.0.1' identified by '{self.password}';\n"
                f"grant all privileges on *.* to '{self.user}'@'127.0.0.1';"
            )
        return self

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: a clean shutdown
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def _client_argv(self, database: str | None) -> list[str]:
        argv = [str(self.binaries["mariadb"]), "--no-defaults", f"--socket={self.socket}"]
        argv += ["--user=root", "--batch", "--raw", "--skip-column-names"]
        argv += ["--default-character-set=utf8mb4"]
        return argv + ([f"--database={database}"] if database else [])

    def sql(self, script: str, database: str | None = None) -> list[str]:
        """Run `script` with the `mariadb` client (stop at the first error), the lines it
        prints (tab-separated, no header): one line per row of a query."""
        done = subprocess.run(
            self._client_argv(database),
            input=script,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"mariadb failed: {done.stderr.strip()}\n--- script ---\n{script[:2000]}"
            )
        return [line for line in done.stdout.split("\n") if line]  # not at U+2028

    def session(self, database: str | None = None) -> subprocess.Popen[str]:
        """An interactive `mariadb` session (open_session)."""
        return open_session(self._client_argv(database) + ["--unbuffered"])
