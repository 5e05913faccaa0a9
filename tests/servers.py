"""A server process a test starts: its own process group, its output in a log, waited for
until it listens on 127.0.0.1, and stopped (SIGTERM, then SIGKILL) when the block ends, failed
or not. The Kafka broker (tests/kafka_broker.py) and the S3-compatible server
(tests/s3_server.py) run in it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from workbench.servers.cluster import port_open


@contextmanager
def serving(
    name: str,
    command: Sequence[str],
    log_path: Path,
    port: int,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> Iterator[subprocess.Popen[bytes]]:
    """Start `command`; yield its process once it listens on `port`."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            list(command),
            stdout=log,
            stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + timeout
            while not port_open(port):
                if process.poll() is not None:
                    raise RuntimeError(f"the {name} exited: see {log_path}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the {name} did not start within {timeout:.0f} s")
                time.sleep(0.2)
            yield process
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
