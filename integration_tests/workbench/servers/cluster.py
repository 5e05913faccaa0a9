"""A Spark standalone cluster on this machine, for dbt's `thrift` target.

`python -m workbench.servers.cluster up` starts, from the installed pyspark distribution and on
127.0.0.1 only:

1. a standalone **master** (`org.apache.spark.deploy.master.Master`);
2. one **worker** (`org.apache.spark.deploy.worker.Worker`), which starts the executor JVM
   of each application in its own process;
3. a **Hive metastore service** (`metastore_server.py` beside this file: Derby behind Hive's
   metastore Thrift API), which the Thrift Server reaches by `hive.metastore.uris`, as a
   cluster's Spark reaches its shared metastore;
4. the **Spark Thrift Server** (`HiveThriftServer2`, started by `thrift_server.py` beside this file)
   submitted to that master with `spark-submit`, with its own warehouse, and the project's
   Python UDFs shipped to the executors (`--py-files`);
5. with `--connect-port` (`ClusterSpec.connect_port`), a **Spark Connect server** submitted
   the same way, beside the Thrift Server: the same settings, warehouse and metastore service,
   its own executor, for dbt's `connect` target (`CDC_SPARK_REMOTE=sc://127.0.0.1:<port>`).

`up --local` starts the metastore service and the Thrift Server on a `local[N]` master (no
master, worker or executor process): a long-lived Spark for people who run dbt again and again on
this machine, each `dbt` command then paying neither the JVM's start nor its warm-up.

Everything lives under one folder (default `.cluster/`, git-ignored): logs, the metastore,
the warehouse, the worker's work folder, and `cluster.json` (ports and process ids).
`python -m workbench.servers.cluster down` stops what `up` started (each process group, then
anything left holding a port); `status` prints the state file.

dbt reaches the Thrift Server with the `thrift` target of profiles/profiles.yml:
`DBT_TARGET=thrift CDC_THRIFT_PORT=<port> dbt build` (`up` prints the line).
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import os
import random
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil
import tenacity

from cdc_tools.local_spark import REPO_ROOT, local_jars, table_format_conf

DEFAULT_HOME = REPO_ROOT / ".cluster"
LOOPBACK = "127.0.0.1"
STATE_FILE = "cluster.json"
THRIFT_SERVER_SCRIPT = Path(__file__).with_name("thrift_server.py")
# the lab (workbench, beside the consumer project) and the package's tooling (cdc_tools, at
# the root): the path of every Python process the servers start (the metastore service's,
# the Thrift Server's driver, the UDFs' workers)
LAB_ROOT = Path(__file__).resolve().parents[2]
SERVER_PYTHONPATH = os.pathsep.join([str(REPO_ROOT), str(LAB_ROOT)])
START_TIMEOUT_S = 180.0


class ClusterError(RuntimeError):
    """A cluster process did not start (the message names its log) or a port is taken."""


@dataclass
class ClusterSpec:
    """Ports (0: any free one), sizes and settings of the cluster."""

    master_port: int = 7077
    master_ui_port: int = 8080
    worker_port: int = 0
    worker_ui_port: int = 8081
    thrift_port: int = 10000
    metastore_port: int = 9083
    worker_cores: int = 2
    worker_memory: str = "4g"
    executor_memory: str = "2g"
    driver_memory: str = "2g"
    shuffle_partitions: int = 4
    extra_conf: Mapping[str, str] = field(default_factory=dict)
    # JVM options added to every JVM of the cluster (daemons, metastore, Thrift Server,
    # executors)
    java_options: str = ""
    # the Thrift Server alone, on local[worker_cores] (one JVM: no master, worker or
    # executor; the metastore service beside it); driver_memory is then the memory of
    # everything
    local: bool = False
    # gold's table format: delta or iceberg give the Thrift Server the jars, extension and
    # catalog of the profile's target of that name (local_spark.table_format_conf), and
    # dbt's environment sets CDC_GOLD_FILE_FORMAT
    table_format: str = "parquet"
    # a Spark Connect server submitted beside the Thrift Server on this port (0: a free one;
    # None: none). The worker then offers its cores and memory to each of the two
    # applications (its executors run one at a time: one client builds at a time)
    connect_port: int | None = None
    # variables added to the environment of every process of the cluster (the credentials
    # of an object store the executors read: AWS_ACCESS_KEY_ID, ...), never written to a file
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass
class ClusterState:
    """What `up` started: read back by `down` and by the tests."""

    home: str
    master_url: str
    thrift_host: str
    thrift_port: int
    master_ui: str
    pids: dict[str, int]
    logs: dict[str, str]
    table_format: str = "parquet"
    connect_port: int | None = None

    def dbt_env(self) -> dict[str, str]:
        """The environment that points dbt's `thrift` target at this cluster (and gold at
        its table format)."""
        return {
            "DBT_TARGET": "thrift",
            "CDC_THRIFT_HOST": self.thrift_host,
            "CDC_THRIFT_PORT": str(self.thrift_port),
            "CDC_GOLD_FILE_FORMAT": self.table_format,
        }

    def connect_env(self) -> dict[str, str]:
        """The environment that points dbt's `connect` target at the cluster's Spark Connect
        server (and gold at its table format)."""
        if self.connect_port is None:
            raise ClusterError("this cluster runs no Spark Connect server (connect_port)")
        return {
            "DBT_TARGET": "connect",
            "CDC_SPARK_REMOTE": f"sc://{self.thrift_host}:{self.connect_port}",
            "CDC_GOLD_FILE_FORMAT": self.table_format,
        }


# ports handed out by free_port: below the kernel's ephemeral range, where no outgoing
# connection takes one as its local port between free_port's check and the server's bind
_HANDED_OUT: set[int] = set()


def _ephemeral_floor() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default; macOS's range starts at 49152


def free_port() -> int:
    """A port free on loopback for a server to bind: a random one below the ephemeral range
    (a port the kernel hands out for port 0 may be taken, once released, by any outgoing
    connection of the machine before the server binds it), never one this process handed
    out before."""
    floor = _ephemeral_floor()
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(20000, max(floor, 20001))
        if port in _HANDED_OUT:
            continue
        with socket.socket() as sock:
            try:
                sock.bind((LOOPBACK, port))
            except OSError:
                continue
        _HANDED_OUT.add(port)
        return port
    with socket.socket() as sock:  # a crowded range: the kernel's choice
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def port_open(port: int, host: str = LOOPBACK) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def poll_until(done: Callable[[], bool], timeout: float, interval: float) -> bool:
    """Whether `done()` came true within `timeout` seconds, asked every `interval` seconds;
    an exception `done` raises ends the wait and propagates."""
    waiting: tenacity.Retrying = tenacity.Retrying(
        stop=tenacity.stop_after_delay(timeout),
        wait=tenacity.wait_fixed(interval),
        retry=tenacity.retry_if_result(lambda result: not result),
        retry_error_callback=lambda _state: False,
    )
    return bool(waiting(done))


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


# Spark Connect's server, as the Connect server of connect_server.py and the one a cluster
# submits beside its Thrift Server run it: its class, its jar, and what it adds to the
# profile's settings (`enableHiveSupport()` of an in-process session)
SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
HIVE_CATALOG = {"spark.sql.catalogImplementation": "hive"}


def connect_jar() -> str:
    """pyspark ships Spark Connect's server as a jar beside Spark's own."""
    jars = sorted((spark_home() / "jars").glob("spark-connect_*.jar"))
    if not jars:
        raise ClusterError(
            f"Spark Connect's server jar (spark-connect_*.jar) is not in {spark_home() / 'jars'}:"
            " reinstall pyspark (make setup)"
        )
    return str(jars[0])


def _java_options(home: Path, extra: str = "") -> str:
    log4j = os.environ.get("CDC_LOG4J_CONFIG", str(REPO_ROOT / "profiles" / "log4j2.properties"))
    return f"-Dderby.system.home={home} -Dlog4j2.configurationFile={log4j} {extra}".strip()


def cluster_env(
    home: Path, java_options: str = "", extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of every cluster process: loopback only, this interpreter for the
    Python workers, logs and pid files under `home`; `extra` added."""
    env = {**os.environ, **(extra or {})}
    env.update(
        {
            "SPARK_HOME": str(spark_home()),
            "SPARK_LOCAL_IP": LOOPBACK,
            "SPARK_MASTER_HOST": LOOPBACK,
            "SPARK_PUBLIC_DNS": LOOPBACK,
            "SPARK_LOG_DIR": str(home / "logs"),
            "SPARK_PID_DIR": str(home / "run"),
            "SPARK_DAEMON_MEMORY": "512m",
            "SPARK_DAEMON_JAVA_OPTS": _java_options(home, java_options),
            "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable,
            "PYTHONPATH": SERVER_PYTHONPATH,
        }
    )
    return env


def _resolve(spec: ClusterSpec) -> ClusterSpec:
    """The spec with every port 0 replaced by a free one; a taken port is an error."""
    ports = {}
    names = ["thrift_port", "metastore_port"]
    if spec.connect_port is not None:
        names.append("connect_port")
    if not spec.local:
        names += ["master_port", "master_ui_port", "worker_port", "worker_ui_port"]
    for name in names:
        port = getattr(spec, name)
        if port == 0:
            port = free_port()
        elif port_open(port):
            raise ClusterError(
                f"port {port} ({name}) on {LOOPBACK} is in use: stop what holds it "
                f"(python -m workbench.servers.cluster down), or choose another port"
            )
        ports[name] = port
    return ClusterSpec(**{**asdict(spec), **ports})


_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}
"""Processes this interpreter started, reaped by `down` (no zombies left behind)."""


def _start(
    name: str, argv: list[str], env: Mapping[str, str], home: Path
) -> subprocess.Popen[bytes]:
    log = home / "logs" / f"{name}.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            argv,
            env=dict(env),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=home,
            start_new_session=True,  # its own process group: `down` stops the JVM it execs
        )
    _CHILDREN[process.pid] = process
    return process


def _wait_for(
    port: int, process: subprocess.Popen[bytes], name: str, home: Path, timeout: float
) -> None:

    def listening() -> bool:
        if process.poll() is not None:
            raise ClusterError(
                f"the {name} exited with code {process.returncode} before listening on "
                f"{LOOPBACK}:{port}; see {home / 'logs' / (name + '.log')}"
            )
        return port_open(port)

    if poll_until(listening, timeout, 0.5):
        return
    raise ClusterError(
        f"the {name} did not listen on {LOOPBACK}:{port} within {timeout:.0f} s; see "
        f"{home / 'logs' / (name + '.log')}"
    )


def _wait_for_worker(master_ui_port: int, process: subprocess.Popen[bytes], home: Path) -> None:
    """The worker registered with the master (its JSON status lists one alive worker)."""
    import urllib.request

    def registered() -> bool:
        if process.poll() is not None:
            raise ClusterError(f"the worker exited; see {home / 'logs' / 'worker.log'}")
        with contextlib.suppress(OSError, ValueError):
            url = f"http://{LOOPBACK}:{master_ui_port}/json/"
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 (loopback)
                status = json.load(response)
            return int(status.get("aliveworkers", 0)) >= 1
        return False

    if poll_until(registered, START_TIMEOUT_S, 0.5):
        return
    raise ClusterError(f"no worker registered with the master; see {home / 'logs'}")


def up(home: Path = DEFAULT_HOME, spec: ClusterSpec | None = None) -> ClusterState:
    """Start master, worker and Thrift Server under `home`; returns their state. On a
    failure, what was started is stopped again before the error is raised."""
    home = home.resolve()
    if (home / STATE_FILE).exists():
        down(home)
    spec = _resolve(spec or ClusterSpec())
    for folder in ("logs", "run", "work", "warehouse"):
        (home / folder).mkdir(parents=True, exist_ok=True)
    env = cluster_env(home, spec.java_options, spec.env)
    bin_dir = spark_home() / "bin"
    master_url = (
        f"local[{spec.worker_cores}]" if spec.local else f"spark://{LOOPBACK}:{spec.master_port}"
    )
    state = ClusterState(
        home=str(home),
        master_url=master_url,
        thrift_host=LOOPBACK,
        thrift_port=spec.thrift_port,
        master_ui=f"http://{LOOPBACK}:{spec.master_ui_port}",
        pids={},
        logs={},
        table_format=spec.table_format,
        connect_port=spec.connect_port,
    )
    apps = 1 if spec.connect_port is None else 2
    try:
        # the metastore's JVM starts while master and worker do
        java_options = _java_options(home, spec.java_options)
        metastore = _start(
            "metastore",
            [sys.executable, "-m", "workbench.servers.metastore_server", "--home", str(home),
             "--port", str(spec.metastore_port), f"--java-options={java_options}"],
            env, home,
        )  # fmt: skip
        _record(state, "metastore", metastore, home)
        if not spec.local:  # --local: the Thrift Server alone, nothing to submit it to
            master = _start(
                "master",
                [str(bin_dir / "spark-class"), "org.apache.spark.deploy.master.Master",
                 "--host", LOOPBACK, "--port", str(spec.master_port),
                 "--webui-port", str(spec.master_ui_port)],
                env, home,
            )  # fmt: skip
            _record(state, "master", master, home)
            _wait_for(spec.master_port, master, "master", home, START_TIMEOUT_S)
            worker = _start(
                "worker",
                [str(bin_dir / "spark-class"), "org.apache.spark.deploy.worker.Worker",
                 "--host", LOOPBACK, "--port", str(spec.worker_port),
                 "--webui-port", str(spec.worker_ui_port),
                 "--cores", str(spec.worker_cores * apps),
                 "--memory", _times(spec.worker_memory, apps),
                 "--work-dir", str(home / "work"), master_url],
                env, home,
            )  # fmt: skip
            _record(state, "worker", worker, home)
            _wait_for_worker(spec.master_ui_port, worker, home)
        _wait_for(spec.metastore_port, metastore, "metastore", home, START_TIMEOUT_S)
        thrift = _start("thrift-server", _submit_argv(home, spec, master_url), env, home)
        _record(state, "thrift-server", thrift, home)
        _wait_for(spec.thrift_port, thrift, "thrift-server", home, START_TIMEOUT_S)
        if spec.connect_port is not None:
            connect = _start("connect-server", _connect_argv(home, spec, master_url), env, home)
            _record(state, "connect-server", connect, home)
            _wait_for(spec.connect_port, connect, "connect-server", home, START_TIMEOUT_S)
    except BaseException:
        _write_state(home, state)
        down(home)
        raise
    _write_state(home, state)
    return state


def _times(memory: str, factor: int) -> str:
    """`4g` times 2: `8g` (a size of Spark's: a number and one unit letter)."""
    return f"{int(memory[:-1]) * factor}{memory[-1]}" if factor != 1 else memory


def _server_conf(home: Path, spec: ClusterSpec) -> dict[str, str]:
    """The settings of a server submitted to the cluster (the Thrift Server, the Connect
    server): its warehouse, the metastore service, the table format's jars and catalog."""
    conf = {
        "spark.driver.host": LOOPBACK,
        "spark.driver.bindAddress": LOOPBACK,
        "spark.driver.memory": spec.driver_memory,
        "spark.executor.memory": spec.executor_memory,
        "spark.cores.max": str(spec.worker_cores),
        "spark.ui.enabled": "false",
        "spark.sql.warehouse.dir": str(home / "warehouse"),
        "spark.hadoop.hive.metastore.uris": f"thrift://{LOOPBACK}:{spec.metastore_port}",
        "spark.hadoop.hive.metastore.execute.setugi": "false",
        "spark.driver.extraJavaOptions": _java_options(home, spec.java_options),
        "spark.executor.extraJavaOptions": _java_options(home, spec.java_options),
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": str(spec.shuffle_partitions),
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
        "spark.pyspark.python": sys.executable,
        **table_format_conf(spec.table_format),
        **spec.extra_conf,
    }
    # the jars `local` passes too (the listing of the landing files Spark hides, the Avro and
    # Parquet landing files' reader), once each
    listed = [jar for jar in str(conf.get("spark.jars") or "").split(",") if jar]
    jars = ",".join(dict.fromkeys([*listed, *local_jars()]))
    if jars:
        conf["spark.jars"] = jars
        # spark.jars ships them to the executors; the server's own statements run in its
        # handler threads, which load classes from the JVM's class path only
        # (NoClassDefFoundError: org/apache/spark/sql/delta/DeltaTable$ without this)
        conf["spark.driver.extraClassPath"] = ":".join(jars.split(","))
    return conf


def _submit(conf: Mapping[str, str], master_url: str, home: Path, *rest: str) -> list[str]:
    argv = [str(spark_home() / "bin" / "spark-submit"), "--master", master_url]
    for key, value in conf.items():
        argv += ["--conf", f"{key}={value}"]
    return [*argv, *rest]


def _submit_argv(home: Path, spec: ClusterSpec, master_url: str) -> list[str]:
    conf = {
        "spark.app.name": "cdc-thrift-server",
        **_server_conf(home, spec),
        "spark.sql.hive.thriftServer.singleSession": "true",
        # each statement runs in the thread of its request, which returns when it is done:
        # dbt-spark submits asynchronously and sleeps its poll interval (whole seconds)
        # whenever the first poll finds a statement still running, most of a build's
        # hundreds of short statements; run synchronously, none waits
        "spark.sql.hive.thriftServer.async": "false",
        "spark.hadoop.hive.server2.thrift.bind.host": LOOPBACK,
        "spark.hadoop.hive.server2.thrift.port": str(spec.thrift_port),
        "spark.hadoop.hive.server2.transport.mode": "binary",
        **spec.extra_conf,
    }
    return _submit(conf, master_url, home, str(THRIFT_SERVER_SCRIPT))


def _connect_argv(home: Path, spec: ClusterSpec, master_url: str) -> list[str]:
    conf = {
        "spark.app.name": "cdc-connect-server",
        **_server_conf(home, spec),
        **HIVE_CATALOG,
        "spark.connect.grpc.binding.address": LOOPBACK,
        "spark.connect.grpc.binding.port": str(spec.connect_port),
        **spec.extra_conf,
    }
    return _submit(conf, master_url, home, "--class", SERVER_CLASS, connect_jar())


def _record(state: ClusterState, name: str, process: subprocess.Popen[bytes], home: Path) -> None:
    state.pids[name] = process.pid
    state.logs[name] = str(home / "logs" / f"{name}.log")
    _write_state(home, state)


def _write_state(home: Path, state: ClusterState) -> None:
    (home / STATE_FILE).write_text(json.dumps(asdict(state), indent=2) + "\n")


def read_state(home: Path = DEFAULT_HOME) -> ClusterState | None:
    path = home.resolve() / STATE_FILE
    if not path.exists():
        return None
    return ClusterState(**json.loads(path.read_text()))


def alive(pid: int) -> bool:
    child = _CHILDREN.get(pid)
    if child is not None:
        return child.poll() is None
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


def _signal_group(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)


def _group_members(pgid: int) -> list[int]:
    """Live processes of process group `pgid`."""
    members = []
    for process in psutil.process_iter(["status"]):
        with contextlib.suppress(OSError, psutil.Error):
            if process.info["status"] != psutil.STATUS_ZOMBIE and os.getpgid(process.pid) == pgid:
                members.append(process.pid)
    return members


def pids_naming(path: Path) -> list[int]:
    """Live processes whose command line names `path`: every JVM of a cluster names its
    folder, and an executor names the worker's work folder (it may outlive a worker that
    was killed)."""
    marker = str(path)
    return [
        process.pid
        for process in psutil.process_iter(["cmdline", "status"])
        if process.pid != os.getpid()
        and process.info["status"] != psutil.STATUS_ZOMBIE
        and marker in "\0".join(process.info["cmdline"] or ())
    ]


def down(home: Path = DEFAULT_HOME, timeout: float = 30.0) -> list[str]:
    """Stop what `up` started under `home` (Thrift Server first, then worker, master and
    any executor left); returns what it stopped. Safe to call twice."""
    home = home.resolve()
    state = read_state(home)
    stopped: list[str] = []
    if state is not None:
        for name in ("connect-server", "thrift-server", "worker", "master", "metastore"):
            pid = state.pids.get(name)
            if pid is None or not alive(pid):
                continue
            _signal_group(pid, signal.SIGTERM)
            # the group: the metastore's JVM is a child of its Python process
            if not poll_until(
                lambda pid=pid: not (alive(pid) or _group_members(pid)), timeout, 0.2
            ):
                _signal_group(pid, signal.SIGKILL)
            stopped.append(f"{name} (pid {pid})")
    for pid in pids_naming(home / "work"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            stopped.append(f"executor (pid {pid})")
    (home / STATE_FILE).unlink(missing_ok=True)
    return stopped


@dataclass(frozen=True)
class ClusterProcess:
    pid: int
    role: str
    """master, worker, thrift-server (started by `up`) or what runs below them: executor
    (the worker's executor JVM), python (the Thrift Server's PySpark driver, the executor's
    Python workers), `<name> child` (anything else)."""
    listening: tuple[str, ...]
    """The host:port of every TCP socket it listens on."""


def processes(state: ClusterState) -> list[ClusterProcess]:
    """Every live process the cluster runs: the three `up` started and their descendants."""
    found = []
    for name, pid in state.pids.items():
        if not alive(pid):
            continue
        try:
            root = psutil.Process(pid)
            members = [root, *root.children(recursive=True)]
        except psutil.Error:
            continue
        for member in members:
            try:
                command = member.cmdline()
                listening = _listening(member)
            except psutil.Error:
                continue
            role = name
            if any("CoarseGrainedExecutorBackend" in arg for arg in command):
                role = "executor"
            elif member.pid != pid:
                role = "python" if command and "python" in command[0] else f"{name} child"
            found.append(ClusterProcess(member.pid, role, listening))
    return found


def _listening(process: psutil.Process) -> tuple[str, ...]:
    """host:port of every TCP socket `process` listens on (an IPv4-mapped IPv6 address as
    its IPv4 one)."""
    addresses = []
    for connection in process.net_connections(kind="tcp"):
        if connection.status != psutil.CONN_LISTEN:
            continue
        host = ipaddress.ip_address(connection.laddr.ip.split("%")[0])
        if isinstance(host, ipaddress.IPv6Address) and host.ipv4_mapped is not None:
            host = host.ipv4_mapped
        addresses.append(f"{host}:{connection.laddr.port}")
    return tuple(sorted(addresses))


@contextlib.contextmanager
def running(home: Path, spec: ClusterSpec | None = None) -> Iterator[ClusterState]:
    """A cluster for the duration of a `with` block, stopped also when the block fails."""
    state = up(home, spec)
    try:
        yield state
    finally:
        down(home)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m workbench.servers.cluster", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("command", choices=["up", "down", "status"])
    parser.add_argument(
        "--home", type=Path, default=Path(os.environ.get("CDC_CLUSTER_HOME", DEFAULT_HOME))
    )
    parser.add_argument(
        "--thrift-port", type=int, default=int(os.environ.get("CDC_THRIFT_PORT", "10000"))
    )
    parser.add_argument(
        "--metastore-port", type=int, default=int(os.environ.get("CDC_METASTORE_PORT", "9083"))
    )
    parser.add_argument(
        "--connect-port",
        type=int,
        default=None,
        help="also submit a Spark Connect server, listening on this port (0: a free one), for "
        "dbt's connect target",
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help="the Thrift Server alone on local[2] (one JVM, 4g, and the metastore service): "
        "a long-lived local Spark",
    )
    parser.add_argument(
        "--format",
        choices=["parquet", "delta", "iceberg"],
        default=os.environ.get("CDC_GOLD_FILE_FORMAT", "parquet"),
        help="gold's table format: delta or iceberg load that format's jars, extension and "
        "catalog (the settings of the profile's target of that name)",
    )
    args = parser.parse_args(argv)
    if args.command == "up":
        ports = {"thrift_port": args.thrift_port, "metastore_port": args.metastore_port}
        # CDC_JAVA_OPTIONS: JVM options, as for the local profile's driver
        options = os.environ.get("CDC_JAVA_OPTIONS", "")
        spec = ClusterSpec(
            **ports, java_options=options, table_format=args.format,
            connect_port=args.connect_port,
        )  # fmt: skip
        if args.local:
            spec = ClusterSpec(
                **ports, java_options=options, local=True, driver_memory="4g",
                table_format=args.format, connect_port=args.connect_port,
            )  # fmt: skip
        try:
            state = up(args.home, spec)
        except ClusterError as error:
            print(f"cluster: {error}", file=sys.stderr)
            return 1
        print(f"cluster up: master {state.master_url}"
              + ("" if args.local else f" (UI {state.master_ui})")
              + f", Thrift Server {state.thrift_host}:{state.thrift_port}; "
              f"logs in {args.home}/logs")  # fmt: skip
        landing = Path(os.environ.get("CDC_LANDING_DIR", REPO_ROOT / "landing")).resolve()
        # the executors read the landing files: an absolute path (or a shared URI)
        env = {**state.dbt_env(), "CDC_LANDING_DIR": str(landing)}
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        print(f"run dbt on it:  {exports} dbt build")
        if state.connect_port is not None:
            connect = " ".join(f"{k}={v}" for k, v in {**state.connect_env(),
                               "CDC_LANDING_DIR": str(landing)}.items())  # fmt: skip
            print(f"or on Connect:  {connect} dbt build")
        print("stop it:        make cluster-down")
        return 0
    if args.command == "down":
        stopped = down(args.home)
        print("cluster down: " + (", ".join(stopped) if stopped else "nothing was running"))
        return 0
    state = read_state(args.home)
    print(json.dumps(asdict(state), indent=2) if state else "cluster: not running")
    return 0


if __name__ == "__main__":
    sys.exit(main())
