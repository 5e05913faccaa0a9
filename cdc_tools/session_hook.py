"""Register the project's UDFs on every Spark session a process creates, without Spark code.

dbt-spark's `method: session` connection calls `SparkSession.builder...getOrCreate()` itself,
so a plain `dbt run` never calls `landing_udfs.register`. `install()` wraps
`SparkSession.Builder.getOrCreate` so that it does. It is meant to run at interpreter start
from a `.pth` file in the venv (see `pth_line`), so it must stay cheap: it does not import
pyspark, it waits for pyspark to be imported (a `sys.meta_path` finder) and patches
`pyspark.sql.session` right after the module has run.

The wrapper also takes the local warehouse's lock (`cdc_tools.warehouse_lock`) before the
first session of the process is created, so that two `dbt` commands on one `.spark/` run
one after the other instead of failing inside Derby, and hands the builder's options to the
JVM preparers a process added (`add_jvm_preparer`) before the first session starts its JVM
(the test rig's local speed-ups, `workbench.speedups`, add theirs).

A Spark Connect client (`spark.remote`, the `connect` target) has no JVM or warehouse of its
own: the wrapper then sends the server the settings a session may change, once per session
(`_get_or_create_remote`), registers the UDFs on the server's session, gives dbt-spark's
cursor one call to the server per statement (`cdc_tools.connect_cursor`), and runs
statements without pyspark's reattachable executions (a stream the client could resume after
a broken connection, released by a call of its own: about 28 ms a statement on a local
server; `CDC_CONNECT_REATTACHABLE=true` keeps them).

It also quiets PySpark's query-context loggers (`quiet_query_context_logs`): PySpark 4 logs
every `AnalysisException` it raises, with its Java stack trace, as a JSON line on stderr,
even when the caller handles it, as dbt does when it probes a relation that is not built
yet (`TABLE_OR_VIEW_NOT_FOUND`); the error still reaches whoever catches it.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import logging
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

TARGET_MODULE = "pyspark.sql.session"
DBT_SESSION_MODULE = "dbt.adapters.spark.session"
# CDC_CONNECT_REATTACHABLE=true keeps pyspark's reattachable executions on a Connect client
REATTACHABLE_ENV = "CDC_CONNECT_REATTACHABLE"
WRAPPED_MARKER = "_cdc_python_udfs_wrapped"
REGISTERED_MARKER = "_cdc_python_udfs_registered"
# pyspark.errors.exceptions.base: PySparkException._log_exception
QUERY_CONTEXT_LOGGERS: tuple[str, ...] = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")
# CDC_PYSPARK_ERROR_LOGS=true keeps them (every exception PySpark raises, handled or not)
ERROR_LOGS_ENV = "CDC_PYSPARK_ERROR_LOGS"


def quiet_query_context_logs() -> None:
    """Silence PySpark's log line per raised exception unless ERROR_LOGS_ENV says keep it.

    The loggers must be PySparkLoggers (PySpark passes them keyword arguments a plain
    logger rejects), so they are created through `PySparkLogger.getLogger`.
    """
    if os.environ.get(ERROR_LOGS_ENV, "").lower() in ("1", "true", "yes"):
        return
    try:
        from pyspark.logger import PySparkLogger
    except ImportError:  # an older PySpark logs nothing of the kind
        return
    for name in QUERY_CONTEXT_LOGGERS:
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL + 1)


def _register_once(session: Any) -> None:
    """`landing_udfs.register(session)` unless done already; never fails session creation."""
    if getattr(session, REGISTERED_MARKER, False):
        return
    try:
        from cdc_tools import landing_udfs

        landing_udfs.register(session)
        setattr(session, REGISTERED_MARKER, True)
    except Exception as exc:  # noqa: BLE001 - a missing UDF must not cost the session
        warnings.warn(f"session hook: UDF registration failed: {exc!r}", stacklevel=2)


def _lock_warehouse(options: Any) -> None:
    """Hold the local warehouse's lock before Spark opens its Derby metastore
    (`cdc_tools.warehouse_lock`); waits for, or stops on, another process holding it."""
    from cdc_tools import warehouse_lock

    try:
        warehouse_lock.acquire(options)
    except OSError as exc:  # an unwritable folder: Derby's own check is all that is left
        warnings.warn(f"session hook: warehouse lock not taken: {exc!r}", stacklevel=3)


JvmPreparer = Callable[[dict[str, Any]], None]
_JVM_PREPARERS: list[JvmPreparer] = []


def add_jvm_preparer(preparer: JvmPreparer) -> None:
    """Have `preparer` edit the session builder's options before the process's JVM starts
    (Java options, the class path); added once, called in the order added."""
    if preparer not in _JVM_PREPARERS:
        _JVM_PREPARERS.append(preparer)


JARS_OPTION = "spark.jars"


def expand_jar_globs(options: dict[str, Any]) -> None:
    """Replace each glob of `spark.jars` by the files it matches (none: dropped).

    The profiles pass `<jars folder>/*.jar`. spark-submit expands such a glob for the
    driver's class path, but the SparkContext of a Python session receives the option as
    written and logs a FileNotFoundException for it, and executors of a cluster get
    nothing."""
    value = options.get(JARS_OPTION)
    if isinstance(value, str) and not value.strip():
        # `local` without CDC_SPARK_KAFKA=true renders the option empty: no jar
        options.pop(JARS_OPTION)
        return
    if not isinstance(value, str) or not any(char in value for char in "*?["):
        return
    import glob

    jars: list[str] = []
    for entry in (part.strip() for part in value.split(",")):
        if entry and any(char in entry for char in "*?[") and "://" not in entry:
            jars.extend(sorted(glob.glob(os.path.expanduser(entry))))
        elif entry:
            jars.append(entry)
    if jars:
        options[JARS_OPTION] = ",".join(jars)
    else:
        options.pop(JARS_OPTION)


def prepare_jvm_options(options: dict[str, Any]) -> None:
    """Edit the settings of a JVM about to start (a session's, or a server's that
    `workbench.servers.connect_server` starts): the globs of `spark.jars` expanded, then each
    preparer of `add_jvm_preparer`, in order."""
    expand_jar_globs(options)
    for preparer in _JVM_PREPARERS:
        preparer(options)


def _prepare_the_jvm(builder: Any) -> None:
    """Before the process's JVM exists: `prepare_jvm_options` on the builder's options."""
    try:
        from pyspark import SparkContext

        options = getattr(builder, "_options", None)
        if SparkContext._gateway is None and isinstance(options, dict):
            prepare_jvm_options(options)
    except Exception as exc:  # noqa: BLE001 - a preparer only saves time, never costs a session
        warnings.warn(f"session hook: JVM options not prepared: {exc!r}", stacklevel=3)


REMOTE_OPTION = "spark.remote"
_MODIFIABLE: dict[str, bool] = {}  # setting -> whether a Connect server lets a session set it
_APPLIED: dict[int, dict[str, Any]] = {}  # id(Connect session) -> the settings it was given


def remote_url(options: dict[str, Any]) -> str | None:
    """The Spark Connect endpoint a builder with `options` connects to, if any."""
    url = options.get(REMOTE_OPTION) or os.environ.get("SPARK_REMOTE")
    return str(url) if url else None


def _modifiable(session: Any, key: str) -> bool:
    """Whether the server lets a session set `key` (asked once per setting and process)."""
    if key not in _MODIFIABLE:
        try:
            _MODIFIABLE[key] = bool(session.conf.isModifiable(key))
        except Exception:  # noqa: BLE001 - a key the server does not know: a session's own
            _MODIFIABLE[key] = True
    return _MODIFIABLE[key]


class ConnectServerUnreachable(RuntimeError):
    """Nothing answers at the Spark Connect endpoint of `spark.remote`."""


_REACHED: set[str] = set()


def check_reachable(url: str, timeout: float = 5.0) -> None:
    """Fail with the remedy when nothing listens at `url` (`sc://host:port/;options`),
    instead of gRPC's retries and its `failed to connect to all addresses`. Checked once
    per endpoint and process."""
    if url in _REACHED:
        return
    import socket
    from urllib.parse import urlparse

    parsed = urlparse(url.split(";", 1)[0])
    host, port = parsed.hostname or "localhost", parsed.port or 15002
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        raise ConnectServerUnreachable(
            f"no Spark Connect server answers at {url} ({exc.strerror or exc}): start one with "
            "`make spark-up` (python -m workbench.servers.connect_server up), point "
            "CDC_SPARK_REMOTE at a running one, or use another target (DBT_TARGET=local)"
        ) from None
    _REACHED.add(url)


def _get_or_create_remote(builder: Any, original: Callable[..., Any], url: str) -> Any:
    """A Spark Connect client session. The server holds the JVM, its static settings and
    the warehouse: nothing to lock or prepare here. dbt-spark builds a session for every
    statement with the target's settings, and pyspark sends them all to the server each
    time (one round trip, and a warning for each static one, which a session cannot change):
    this sends the settings a session may change, once per session."""
    options: dict[str, Any] = builder._options
    check_reachable(url)
    wanted = {key: value for key, value in options.items() if key != REMOTE_OPTION}
    for key in wanted:
        del options[key]
    session = original(builder)  # only spark.remote: pyspark applies nothing
    if id(session) not in _APPLIED and os.environ.get(REATTACHABLE_ENV, "").lower() != "true":
        # dbt's statements are short: a reattachable execution (a stream the client can
        # resume after a broken connection) costs each statement a second call to release it
        session.client.disable_reattachable_execute()
    dbt_session = sys.modules.get(DBT_SESSION_MODULE)
    if dbt_session is not None:  # dbt's cursor: one call per query (connect_cursor)
        from cdc_tools import connect_cursor

        connect_cursor.patch(dbt_session.Cursor)
    if _APPLIED.get(id(session)) != wanted:
        for key, value in wanted.items():
            if _modifiable(session, key):
                session.conf.set(key, value)
        _APPLIED[id(session)] = wanted
    return session


def patch_builder(session_module: ModuleType) -> None:
    """Wrap `SparkSession.Builder.getOrCreate` in `session_module` (once)."""
    builder = session_module.SparkSession.Builder
    original: Callable[..., Any] = builder.getOrCreate
    if getattr(original, WRAPPED_MARKER, False):
        return

    @functools.wraps(original)
    def get_or_create(self: Any) -> Any:
        options = getattr(self, "_options", {})
        url = remote_url(options) if isinstance(options, dict) else None
        if url is not None:
            session = _get_or_create_remote(self, original, url)
        else:
            _lock_warehouse(options)
            _prepare_the_jvm(self)
            session = original(self)
        _register_once(session)
        quiet_query_context_logs()
        return session

    setattr(get_or_create, WRAPPED_MARKER, True)
    builder.getOrCreate = get_or_create


class _PatchingLoader(importlib.abc.Loader):
    """Runs the real loader, then patches the module it loaded."""

    def __init__(self, inner: importlib.abc.Loader) -> None:
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._inner.exec_module(module)
        patch_builder(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_data ... of the real loader
        return getattr(self._inner, name)


class _SessionModuleFinder(importlib.abc.MetaPathFinder):
    """Finds `pyspark.sql.session` through the other finders and wraps its loader."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != TARGET_MODULE:
            return None
        sys.meta_path[:] = [finder for finder in sys.meta_path if finder is not self]
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


def install() -> None:
    """Point Spark's Python workers at this interpreter and register UDFs on new sessions."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    module = sys.modules.get(TARGET_MODULE)
    if module is not None:
        patch_builder(module)
        return
    if not any(isinstance(finder, _SessionModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SessionModuleFinder())


HOOK_MODULE = "cdc_tools.session_hook"


def pth_line(
    repo_root: str | Path, hook: str = HOOK_MODULE, extra_paths: Sequence[str | Path] = ()
) -> str:
    """The lines of a venv `.pth` file that put the repo (and `extra_paths`) on `sys.path`
    and call the `install()` of module `hook` (default: this one).

    The import line is skipped quietly if the repo has moved, so a stale `.pth` file does
    not print an error in every Python process of the venv.
    """
    root = Path(repo_root).resolve()
    paths = "".join(f"{Path(path).resolve()}\n" for path in extra_paths)
    return (
        f"{root}\n{paths}"
        "import importlib.util as _u; "
        f'_u.find_spec("{hook.split(".")[0]}") is not None and '
        f'__import__("{hook}", fromlist=["install"]).install()\n'
    )


PTH_FILE = "cdc_python_udfs.pth"


def install_pth(
    repo_root: str | Path,
    site_packages: str | Path | None = None,
    hook: str = HOOK_MODULE,
    extra_paths: Sequence[str | Path] = (),
) -> Path:
    """Write the `.pth` file (`pth_line`) into `site_packages` (default: this interpreter's
    purelib, its venv's), so that every Python process of the venv registers the UDFs on
    the sessions it creates; returns its path. `make venv` runs it for this repository's
    own tooling; a project that installs the package needs none."""
    import sysconfig

    folder = Path(site_packages or sysconfig.get_paths()["purelib"])
    path = folder / PTH_FILE
    path.write_text(pth_line(repo_root, hook, extra_paths) + "\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m cdc_tools.session_hook [REPO_ROOT]`: install_pth (default: this
    repository)."""
    args = list(sys.argv[1:] if argv is None else argv)
    root = Path(args[0]) if args else Path(__file__).resolve().parents[1]
    print(f"wrote {install_pth(root)}: sessions of this Python register the UDFs of {root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
