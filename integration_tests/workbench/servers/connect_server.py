"""A long-lived local Spark: a Spark Connect server on 127.0.0.1, for dbt's `connect` target.

`python -m workbench.servers.connect_server up` (`make spark-up`) starts Spark's Connect server
(`SparkConnectServer`, from the installed pyspark distribution) in the background with the
settings of the profile's `local` target (profiles/profiles.yml: one source of truth, read by
`server_conf`): the same master, driver memory, Java options, warehouse and Derby metastore
under `CDC_SPARK_HOME` (default `.spark`), and the same SQL settings, here as the server's
defaults. It also gets what a local session of this venv gets: the jars' globs expanded, the
JVM preparers of the session hook (the class archive, the local file system), this
interpreter for the UDFs' Python workers with the project on their path, and the warehouse's
lock (`cdc_tools.warehouse_lock`), held by the server for as long as it runs. A `local` dbt
command on the same warehouse meanwhile waits for it and says who holds it.

dbt's `connect` target (`method: session`, `spark.remote`) then runs every command against
the warm server: no JVM to start or warm per command. `down` (`make spark-down`) stops it.
`--target delta` or `iceberg` starts it with that target's jars, extension and catalog.

The state (`connect.json`: pid, port, URL, log) and the log live in `<spark home>/connect/`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from cdc_tools.local_spark import LOCAL_TARGETS, local_spark_conf
from workbench.servers.cluster import (
    HIVE_CATALOG,
    SERVER_CLASS,
    SERVER_PYTHONPATH,
    ClusterError,
    alive,
    connect_jar,
    free_port,
    poll_until,
    port_open,
    spark_home,
)

LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 15002
PORT_ENV = "CDC_CONNECT_PORT"
STATE_FILE = "connect.json"
START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 30.0
# what spark-submit takes as its own arguments, not as --conf
SUBMIT_OPTIONS = {
    "spark.master": "--master",
    "spark.app.name": "--name",
    "spark.driver.memory": "--driver-memory",
}


class ConnectServerError(RuntimeError):
    """The server did not start (the message names its log), or its port is taken."""


@dataclass
class ConnectState:
    """What `up` started: read back by `down`, `status` and the tests."""

    pid: int
    port: int
    url: str
    home: str
    log: str
    target: str

    def dbt_env(self) -> dict[str, str]:
        """The environment that points dbt's `connect` target at this server."""
        return {"DBT_TARGET": "connect", "CDC_SPARK_REMOTE": self.url}


def spark_home_dir() -> Path:
    """The folder of the local target's warehouse and metastore (`CDC_SPARK_HOME`, default
    `.spark` in the current folder, as the profile resolves it)."""
    return Path(os.environ.get("CDC_SPARK_HOME", ".spark")).absolute()


def state_dir(home: Path | None = None) -> Path:
    return (home or spark_home_dir()) / "connect"


def server_conf(target: str = "local", port: int = DEFAULT_PORT) -> dict[str, str]:
    """The server's Spark settings: the `target` profile's (an in-process one), rendered with
    the environment, its jars' globs expanded and the session hook's JVM preparers applied,
    plus the Hive catalog and the gRPC binding."""
    if target not in LOCAL_TARGETS:
        raise ConnectServerError(f"no in-process profile target {target!r}: one of {LOCAL_TARGETS}")
    from cdc_tools import session_hook

    conf: dict[str, str] = {**local_spark_conf(target), **HIVE_CATALOG}
    session_hook.prepare_jvm_options(conf)
    conf.update(
        {
            "spark.connect.grpc.binding.address": LOOPBACK,
            "spark.connect.grpc.binding.port": str(port),
            # the UDFs' Python workers: this interpreter, the project on their path
            "spark.pyspark.python": sys.executable,
            "spark.pyspark.driver.python": sys.executable,
        }
    )
    return {key: str(value) for key, value in conf.items()}


def submit_argv(conf: dict[str, str]) -> list[str]:
    """`spark-submit` of the Connect server with `conf`."""
    argv = [str(spark_home() / "bin" / "spark-submit"), "--class", SERVER_CLASS]
    for key, flag in SUBMIT_OPTIONS.items():
        if conf.get(key):
            argv += [flag, conf[key]]
    for key, value in conf.items():
        if key not in SUBMIT_OPTIONS:
            argv += ["--conf", f"{key}={value}"]
    return [*argv, connect_jar()]


def server_env() -> dict[str, str]:
    """The server's environment: loopback only, this interpreter and the project for the
    Python workers."""
    inherited = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    paths = [*SERVER_PYTHONPATH.split(os.pathsep), *[p for p in inherited if p]]
    return {
        **os.environ,
        "SPARK_HOME": str(spark_home()),
        "SPARK_LOCAL_IP": LOOPBACK,
        "PYSPARK_PYTHON": sys.executable,
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths)),
    }


def read_state(home: Path | None = None) -> ConnectState | None:
    path = state_dir(home) / STATE_FILE
    if not path.exists():
        return None
    return ConnectState(**json.loads(path.read_text()))


def up(port: int = DEFAULT_PORT, target: str = "local", home: Path | None = None) -> ConnectState:
    """Start the server (unless one runs already on this warehouse: its state is returned)
    and wait until it answers on 127.0.0.1:`port`."""
    home = home or spark_home_dir()
    running = read_state(home)
    if running is not None and alive(running.pid) and port_open(running.port):
        return running
    if port == 0:
        port = free_port()
    elif port_open(port):
        raise ConnectServerError(
            f"port {port} on {LOOPBACK} is in use: stop what holds it (make spark-down), or "
            f"choose another port ({PORT_ENV})"
        )
    folder = state_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "connect.log"
    conf = server_conf(target, port)
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "workbench.servers.connect_server", "serve", "--conf-json",
             json.dumps(conf)],
            env=server_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: `down` stops the JVM it execs
        )  # fmt: skip
    url = f"sc://{LOOPBACK}:{port}"
    state = ConnectState(process.pid, port, url, str(home), str(log), target)

    def listening() -> bool:
        if port_open(port):
            return True
        if process.poll() is not None:
            tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-15:])
            raise ConnectServerError(
                f"the Spark Connect server exited with code {process.returncode} before "
                f"listening on {LOOPBACK}:{port}; see {log}:\n{tail}"
            )
        return False

    if not poll_until(listening, START_TIMEOUT_S, 0.25):
        _stop(process.pid)
        raise ConnectServerError(
            f"the Spark Connect server did not listen on {LOOPBACK}:{port} within "
            f"{START_TIMEOUT_S:.0f} s; see {log}"
        )
    (folder / STATE_FILE).write_text(json.dumps(asdict(state), indent=2) + "\n")
    return state


def serve(conf: dict[str, str]) -> None:
    """In the server's own process (started by `up`): take the warehouse's lock, keep it
    open across `exec`, and become spark-submit (the JVM then holds the lock)."""
    from cdc_tools import warehouse_lock

    sys.argv = ["spark-connect-server", conf["spark.connect.grpc.binding.port"]]
    os.environ[warehouse_lock.TIMEOUT_ENV] = "0"  # a warehouse in use: stop, say by whom
    warehouse_lock.acquire(conf)
    for fd in warehouse_lock.held_descriptors():
        # a copy of the lock's descriptor, kept across exec: the same open file, so the
        # same lock (the lock's own descriptor is filelock's, closed at exec)
        os.set_inheritable(os.dup(fd), True)
    argv = submit_argv(conf)
    os.execv(argv[0], argv)


def _stop(pid: int, timeout: float = STOP_TIMEOUT_S) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
    poll_until(lambda: not alive(pid), timeout, 0.2)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    # the rest of its group (the JVM's children) holds the warehouse lock until it is gone
    poll_until(lambda: not _group_alive(pid), timeout, 0.1)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def down(home: Path | None = None) -> str | None:
    """Stop the server `up` started on this warehouse; returns what was stopped."""
    state = read_state(home)
    if state is None:
        return None
    stopped = None
    if alive(state.pid):
        _stop(state.pid)
        stopped = f"Spark Connect server {state.url} (pid {state.pid})"
    (state_dir(home) / STATE_FILE).unlink(missing_ok=True)
    return stopped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m workbench.servers.connect_server", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("command", choices=["up", "down", "status", "serve"])
    parser.add_argument(
        "--port", type=int, default=int(os.environ.get(PORT_ENV, str(DEFAULT_PORT)))
    )
    parser.add_argument(
        "--target",
        choices=LOCAL_TARGETS,
        default="local",
        help="the profile target whose settings the server takes: local (parquet), delta or "
        "iceberg (that format's jars, extension and catalog)",
    )
    parser.add_argument("--conf-json", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.command == "serve":
        serve(json.loads(args.conf_json))
        return 1  # not reached: serve execs spark-submit
    if args.command == "up":
        try:
            state = up(args.port, args.target)
        except (ConnectServerError, ClusterError) as error:
            print(f"spark-up: {error}", file=sys.stderr)
            return 1
        print(
            f"Spark Connect server on {state.url} (pid {state.pid}, warehouse {state.home}, "
            f"settings of the `{state.target}` target); log: {state.log}"
        )
        exports = " ".join(f"{key}={value}" for key, value in state.dbt_env().items())
        print(f"run dbt on it:  {exports} dbt build")
        print("stop it:        make spark-down")
        return 0
    if args.command == "down":
        stopped = down()
        print("spark-down: " + (f"stopped the {stopped}" if stopped else "nothing was running"))
        return 0
    state = read_state()
    print(json.dumps(asdict(state), indent=2) if state else "spark: no Connect server running")
    return 0


if __name__ == "__main__":
    sys.exit(main())
