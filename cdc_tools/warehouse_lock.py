"""One process at a time on a local warehouse: an OS file lock taken before Spark starts.

The `local` profile's embedded Derby metastore admits one process. A second `dbt` command
started on the same `.spark/` used to print thousands of lines of Derby and Hive stack
traces before it went on. `acquire(options)` is called by the session hook
(`session_hook.py`) and by `cdc_tools.local_spark.get_local_spark` before a Spark session is
created: it takes the OS lock of `<spark home>/warehouse.lock` (the folder holding the Derby
`metastore_db`; `filelock`, `flock` on Unix) and holds it for the life of the process (the OS
releases it when the process ends, however it ends). The holder writes its pid and command
line into the file once it holds it (filelock's `on_acquired`: a waiter opens the file without
truncating it, so the record stays the holder's).

A second process waits, with one line on stderr naming the command that holds the
warehouse, and goes on when that command ends. With `CDC_WAREHOUSE_LOCK_TIMEOUT=<seconds>`
it waits at most that long (0: not at all) and then stops with `WarehouseBusyError`, whose
message names the running command and the remedy.

The lock is re-entrant within a process (tests create the session once and run dbt
in-process on it), and nothing is locked once the process already runs a Spark context:
`getOrCreate` then returns that context's session and opens no metastore.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from filelock import FileLock, Timeout

LOCK_FILE_NAME = "warehouse.lock"
TIMEOUT_ENV = "CDC_WAREHOUSE_LOCK_TIMEOUT"
CONNECTION_URL_KEY = "spark.hadoop.javax.jdo.option.ConnectionURL"
POLL_SECONDS = 0.5

_DERBY_NAME_ATTRIBUTE = re.compile(r";\s*databaseName=([^;]+)")
# lock file path -> the lock and its open descriptor, for the process lifetime
_HELD: dict[str, tuple[FileLock, int]] = {}


class WarehouseBusyError(RuntimeError):
    """Another process holds the local warehouse and this one would not wait longer."""


def lock_path(options: Mapping[str, Any]) -> Path | None:
    """`<spark home>/warehouse.lock` for a session built with `options`, or None when the
    session uses no embedded Derby metastore (nothing to protect)."""
    url = str(options.get(CONNECTION_URL_KEY) or "")
    if not url.startswith("jdbc:derby:") or url.startswith("jdbc:derby://"):
        return None  # no metastore setting, or a Derby network server: not ours to guard
    rest = url.removeprefix("jdbc:derby:")
    name = rest.split(";", 1)[0].strip()
    if not name:
        attribute = _DERBY_NAME_ATTRIBUTE.search(";" + rest)
        name = attribute.group(1).strip() if attribute else ""
    if not name or name.startswith("memory:"):
        return None
    name = name.removeprefix("directory:")
    return Path(name).expanduser().absolute().parent / LOCK_FILE_NAME


def holder(path: Path) -> dict[str, Any]:
    """What the process holding `path` wrote into it ({} when unreadable)."""
    try:
        parsed = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def describe_holder(path: Path) -> str:
    """`pid 123 (dbt run --select x), started 2026-01-01T00:00:00Z` or what is known of it."""
    info = holder(path)
    if not info:
        return "another process"
    text = f"pid {info.get('pid', '?')} ({info.get('command', '?')})"
    if info.get("started_at"):
        text += f", started {info['started_at']}"
    return text


def _timeout() -> float | None:
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError as exc:
        raise WarehouseBusyError(
            f"{TIMEOUT_ENV}={raw!r} is not a number of seconds (unset it to wait as long as "
            "the other command runs, 0 to stop at once)"
        ) from exc


def _write_holder(fd: int) -> None:
    record = {
        "pid": os.getpid(),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else "python",
        "cwd": os.getcwd(),
        "started_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    os.ftruncate(fd, 0)
    os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)


def acquire_path(path: Path, *, stream: TextIO | None = None) -> None:
    """Hold the lock at `path` for the rest of the process (see the module doc)."""
    key = str(path)
    if key in _HELD:
        return
    if sys.platform == "win32":  # pragma: no cover - Windows' locks bar reading the record
        return
    timeout = _timeout()
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptors: list[int] = []

    def held(fd: int) -> None:
        _write_holder(fd)
        descriptors.append(fd)

    lock = FileLock(
        path,
        thread_local=False,  # held by the process, whichever thread took it
        fallback_to_soft=False,  # no flock on this file system: fail, never a weaker lock
        preserve_lock_file=True,  # the file is the holder's record
        on_acquired=held,
    )
    try:
        lock.acquire(blocking=False)
    except Timeout:
        running = describe_holder(path)
        if timeout is not None and timeout <= 0:
            raise WarehouseBusyError(_busy_message(path, running, timeout)) from None
        limit = "" if timeout is None else f" for up to {timeout:g} s"
        print(
            f"cdc: the warehouse {path.parent} is in use by {running}; waiting{limit} "
            f"for it to finish (only one process may use it at a time; {TIMEOUT_ENV}=0 "
            "stops instead of waiting)",
            file=stream or sys.stderr,
            flush=True,
        )
        try:
            lock.acquire(timeout=-1 if timeout is None else timeout, poll_interval=POLL_SECONDS)
        except Timeout:
            message = _busy_message(path, describe_holder(path), timeout)
            raise WarehouseBusyError(message) from None
    _HELD[key] = (lock, descriptors[0])


def _busy_message(path: Path, running: str, timeout: float | None) -> str:
    waited = "did not wait" if not timeout else f"waited {timeout:g} s"
    return (
        f"the warehouse {path.parent} is in use by {running} ({waited}: {TIMEOUT_ENV}="
        f"{os.environ.get(TIMEOUT_ENV, '')}). The embedded Derby metastore admits one process "
        f"at a time: let that command finish (or stop it) and run this one again, unset "
        f"{TIMEOUT_ENV} to wait for it, or set CDC_SPARK_HOME to another warehouse."
    )


def acquire(options: Mapping[str, Any], *, stream: TextIO | None = None) -> None:
    """Lock the warehouse of a session about to be built with `options`, unless this
    process already runs a Spark context (then no new metastore is opened)."""
    path = lock_path(options)
    if path is None:
        return
    if "pyspark" in sys.modules:
        from pyspark import SparkContext

        if getattr(SparkContext, "_active_spark_context", None) is not None:
            return
    acquire_path(path, stream=stream)


def held_descriptors() -> list[int]:
    """The open descriptors of the locks this process holds (a process that `exec`s a
    server passes on an inheritable copy of each, so that the server holds the lock)."""
    return [fd for _, fd in _HELD.values()]


def release_all() -> None:
    """Release every lock this process holds (for tests; the OS does it at exit)."""
    while _HELD:
        _, (lock, _) = _HELD.popitem()
        lock.release(force=True)
